/**
 * A batch that restarts mid-way runs no item twice: an item marked running whose task was never
 * made (a crash between the two) is queued again and made once; a task whose end was never pushed
 * (a lost push) is read by the batch's alarm and recorded, with no second task.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { itemIdempotencyKey, itemTaskId } from "../../src/batches/names";
import { call, newTenant } from "../helpers/api";
import { newKey, waitFor } from "../helpers/tasks";
import { allItems, createBatch, imageItems, waitForBatch } from "./helpers";

const batchStub = (id: string) => env.BATCHES.get(env.BATCHES.idFromString(id.slice("batch_".length)));

/** Writes an item's row as a restart would find it: running, its task id written, started long ago. */
async function markRunning(batchId: string, seq: number, taskId: string) {
  await runInDurableObject(batchStub(batchId), async (_o, state) => {
    const sql = state.storage.sql;
    const was = sql.exec<{ status: string }>("SELECT status FROM items WHERE seq = ?", seq).one().status;
    // The running totals move with the row, as the object's own start moves them.
    if (was !== "running") sql.exec(`UPDATE batch SET n_${was} = n_${was} - 1, n_running = n_running + 1 WHERE id = 1`);
    sql.exec(
      "UPDATE items SET status = 'running', task_id = ?, started_at = ? WHERE seq = ?",
      taskId,
      new Date(Date.now() - 3_600_000).toISOString(),
      seq,
    );
    sql.exec("UPDATE batch SET next_check_at = 0 WHERE id = 1");
    // As after a restart: the alarm is due (a batch waiting on pushes may have none set).
    await state.storage.setAlarm(Date.now());
  });
}

const held = (i: number) => ({ prompt: `held ${i}`, metadata: { sandbox_fault: "hang" } });

describe("a batch resumed after a restart", () => {
  it("queues again an item whose task was never made, and makes it once", async () => {
    const t = await newTenant({ mode: "test" });
    const key = newKey();
    const items = imageItems(3, (i) => (i === 0 ? held(i) : { prompt: `resumed ${i}` }));
    const res = await createBatch(t, { operation: "text_to_image", items, concurrency: 1 }, key);
    const id = res.json.batch_id;
    const first = await waitForBatch(t, id, (b) => b.counts.running === 1);
    expect(first.counts.queued).toBe(2);
    const neverMade = itemTaskId(env, t.tenant_id, "test", await itemIdempotencyKey(key, "item-2"));
    await markRunning(id, 2, neverMade);
    await runDurableObjectAlarm(batchStub(id));
    // The alarm may have run on its own just before: its outcome is read either way.
    let requeued = (await allItems(t, id)).find((i) => i.custom_id === "item-2");
    for (let i = 0; i < 100 && requeued?.status !== "queued"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      requeued = (await allItems(t, id)).find((i) => i.custom_id === "item-2");
    }
    expect(requeued).toMatchObject({ status: "queued", task_id: null });
    // The held item ends; the other two start in order and succeed.
    const running = (await allItems(t, id, "&status=running"))[0];
    expect((await call(`/v1/tasks/${running.task_id}/cancel`, { key: t.api_key, method: "POST" })).status).toBe(200);
    const done = await waitForBatch(t, id);
    expect(done.counts).toMatchObject({ succeeded: 2, canceled: 1 });
    const all = await allItems(t, id);
    expect(all[2]).toMatchObject({ status: "succeeded", task_id: neverMade });
    const tasks = (await call("/v1/tasks?limit=100", { key: t.api_key })).json.data;
    expect(tasks).toHaveLength(3);
    expect(new Set(tasks.map((x: any) => x.task_id))).toEqual(new Set(all.map((i) => i.task_id)));
  });

  it("reads a task whose end was never pushed, and records it without making another", async () => {
    const t = await newTenant({ mode: "test" });
    const key = newKey();
    const items = imageItems(2, (i) => (i === 0 ? held(i) : { prompt: "made before the restart" }));
    const res = await createBatch(t, { operation: "text_to_image", items, concurrency: 1 }, key);
    const id = res.json.batch_id;
    await waitForBatch(t, id, (b) => b.counts.running === 1);
    // The item's task, made under its derived key before the restart; it ends, and no push reaches the batch.
    const made = await call("/v1/images/generations", {
      key: t.api_key,
      body: items[1]?.body,
      headers: { "Idempotency-Key": await itemIdempotencyKey(key, "item-1") },
    });
    expect(made.status, made.text).toBe(202);
    await waitFor(t, made.json.task_id);
    await markRunning(id, 1, made.json.task_id);
    await runDurableObjectAlarm(batchStub(id));
    let recorded = (await allItems(t, id)).find((i) => i.custom_id === "item-1");
    for (let i = 0; i < 100 && recorded?.status !== "succeeded"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      recorded = (await allItems(t, id)).find((i) => i.custom_id === "item-1");
    }
    expect(recorded).toMatchObject({ status: "succeeded", task_id: made.json.task_id });
    const running = (await allItems(t, id, "&status=running"))[0];
    await call(`/v1/tasks/${running.task_id}/cancel`, { key: t.api_key, method: "POST" });
    const done = await waitForBatch(t, id);
    expect(done.counts).toMatchObject({ succeeded: 1, canceled: 1, running: 0, queued: 0 });
    expect((await call("/v1/tasks?limit=100", { key: t.api_key })).json.data).toHaveLength(2);
  });
});
