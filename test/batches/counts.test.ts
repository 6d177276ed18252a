/**
 * A batch's counts are running totals on its row, changed in the same write as each item's
 * status: a step of the batch (its alarm, a read of the envelope) counts no items, so a batch of
 * 10,000 items costs per step what one of 100 does. The totals always equal a count of the rows,
 * and a batch object of schema version 1 gets them computed once by its migration.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { BatchObject } from "../../src/batches/batch-object";
import { BATCH_MIGRATIONS } from "../../src/batches/batch-schema";
import { migrate, schemaVersion } from "../../src/storage/migrations";
import { call, newTenant } from "../helpers/api";
import { rebuildAt } from "../helpers/storage";
import { createBatch, getBatch, imageItems, waitForBatch } from "./helpers";

const batchStub = (id: string) =>
  env.BATCHES.get(env.BATCHES.idFromString(id.slice("batch_".length))) as DurableObjectStub<BatchObject>;

/** The counts as a GROUP BY of the rows finds them. */
function counted(sql: SqlStorage) {
  const c: Record<string, number> = { total: 0, queued: 0, running: 0, succeeded: 0, failed: 0, canceled: 0 };
  for (const r of sql.exec<{ status: string; n: number }>("SELECT status, COUNT(*) AS n FROM items GROUP BY status")) {
    c[r.status] = r.n;
    c.total = (c.total ?? 0) + r.n;
  }
  return c;
}

const hang = (i: number) => ({ prompt: `held ${i}`, metadata: { sandbox_fault: "hang" } });

describe("batch counts", () => {
  it("an alarm step and a read count no items, and the totals follow starts, budget refusals and a cancel", {
    timeout: 120_000,
  }, async () => {
    const t = await newTenant({ credits: "100000" });
    // Each item is estimated alike; the cap lets three start and refuses the rest as they come up.
    const probe = await createBatch(t, { operation: "text_to_image", items: imageItems(1), max_credits: "0" });
    expect(probe.status, probe.text).toBe(202);
    const each = Number((await waitForBatch(t, probe.json.batch_id)).billing.estimated_credits);
    expect(each).toBeGreaterThan(0);
    const res = await createBatch(t, {
      operation: "text_to_image",
      items: imageItems(300, hang),
      concurrency: 5,
      max_credits: (each * 3.5).toFixed(9),
    });
    expect(res.status, res.text).toBe(202);
    const id = res.json.batch_id;
    const started = await waitForBatch(t, id, (b) => b.counts.running === 3 && b.counts.queued === 0);
    expect(started.counts).toEqual({ total: 300, queued: 0, running: 3, succeeded: 0, failed: 0, canceled: 297 });

    const queries = await runInDurableObject(batchStub(id), async (instance: BatchObject, state) => {
      const sql = state.storage.sql;
      const seen: string[] = [];
      let read: Awaited<ReturnType<BatchObject["read"]>> | undefined;
      const exec = sql.exec.bind(sql);
      // Every statement the object runs while the spy is in place.
      (sql as { exec: unknown }).exec = (query: string, ...args: unknown[]) => {
        seen.push(query);
        return exec(query, ...(args as []));
      };
      try {
        await state.storage.setAlarm(Date.now());
        await instance.alarm();
        read = await instance.read({ tenant_id: t.tenant_id, mode: "live" });
      } finally {
        (sql as { exec: unknown }).exec = exec;
      }
      expect(read?.counts).toEqual(counted(sql));
      return seen;
    });
    expect(queries.length).toBeGreaterThan(0);
    expect(queries.filter((q) => /GROUP BY|COUNT\(/i.test(q))).toEqual([]);

    const canceled = await call(`/v1/batches/${id}/cancel`, { key: t.api_key, method: "POST" });
    expect(canceled.status, canceled.text).toBe(200);
    const done = await waitForBatch(t, id);
    expect(done.counts).toMatchObject({ total: 300, queued: 0, running: 0, canceled: 300 });
    await runInDurableObject(batchStub(id), (_o, state) => {
      expect(done.counts).toEqual(counted(state.storage.sql));
    });
  });

  it("a batch object of version 1 gets its totals from its rows once, and keeps them from then on", async () => {
    const t = await newTenant({ mode: "test" });
    const res = await createBatch(t, { operation: "text_to_image", items: imageItems(2, hang), concurrency: 1 });
    expect(res.status, res.text).toBe(202);
    const id = res.json.batch_id;
    await waitForBatch(t, id, (b) => b.counts.running === 1);
    const latest = BATCH_MIGRATIONS[BATCH_MIGRATIONS.length - 1]?.version as number;
    await runInDurableObject(batchStub(id), async (_o, state) => {
      const sql = state.storage.sql;
      const batchRow = sql.exec("SELECT * FROM batch").one();
      // The object as version 1 left it: the same batch (its columns of then) and items, no totals.
      await rebuildAt(state.storage, BATCH_MIGRATIONS, 1);
      expect(schemaVersion(sql)).toBe(1);
      const v1Columns = sql
        .exec<{ name: string }>("PRAGMA table_info(batch)")
        .toArray()
        .map((c) => c.name);
      const row = Object.entries(batchRow).filter(([k]) => v1Columns.includes(k));
      sql.exec(
        `INSERT INTO batch (${row.map(([k]) => k).join(", ")}) VALUES (${row.map(() => "?").join(", ")})`,
        ...row.map(([, v]) => v),
      );
      const item = (seq: number, status: string) =>
        sql.exec(
          "INSERT INTO items (seq, custom_id, body, estimate, status, reserved, refunded) VALUES (?, ?, ?, '1', ?, '0', '0')",
          seq,
          `item-${seq}`,
          JSON.stringify({ prompt: "restored" }),
          status,
        );
      const statuses = ["succeeded", "succeeded", "succeeded", "failed", "canceled", "canceled", "running"];
      for (const [seq, status] of [...statuses, "queued", "queued", "queued", "queued"].entries()) item(seq, status);
      expect(await migrate(state.storage, BATCH_MIGRATIONS)).toBe(latest);
      expect(
        sql.exec("SELECT n_total, n_queued, n_running, n_succeeded, n_failed, n_canceled FROM batch WHERE id = 1").one(),
      ).toEqual({ n_total: 11, n_queued: 4, n_running: 1, n_succeeded: 3, n_failed: 1, n_canceled: 2 });
    });
    const read = await getBatch(t, id);
    expect(read.json.counts).toEqual({ total: 11, queued: 4, running: 1, succeeded: 3, failed: 1, canceled: 2 });
  });
});
