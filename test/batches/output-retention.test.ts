/**
 * A batch's output file is kept as a task's outputs are: for the tenant's retention from when it
 * is written (`output_file_expires_at` on the envelope, `expires_at` in the object's metadata),
 * then deleted by the batch's alarm; the envelope keeps its id and end, with no URL.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { artifactKey } from "../../src/media/artifacts";
import { DAY_MS } from "../../src/retention/days";
import { admin, call, newTenant } from "../helpers/api";
import { createBatch, getBatch, imageItems, waitForBatch } from "./helpers";

const batchStub = (id: string) => env.BATCHES.get(env.BATCHES.idFromString(id.slice("batch_".length)));

describe("a batch's output file", () => {
  it("expires after the tenant's retention, is deleted by the batch's alarm, and loses its URL", async () => {
    const t = await newTenant({ mode: "test" });
    const set = await admin(`/admin/v1/tenants/${t.tenant_id}/settings`, { output_retention_days: 3 });
    expect(set.status, set.text).toBe(200);
    const res = await createBatch(t, { operation: "text_to_image", items: imageItems(2) });
    expect(res.status, res.text).toBe(202);
    const done = await waitForBatch(t, res.json.batch_id);
    expect(done.status).toBe("completed");
    const expires = Date.parse(done.output_file_expires_at);
    const completed = Date.parse(done.completed_at);
    expect(expires - completed).toBeGreaterThanOrEqual(3 * DAY_MS - 60_000);
    expect(expires - completed).toBeLessThanOrEqual(3 * DAY_MS + 60_000);
    expect(done.output_file_url).toEqual(expect.any(String));
    const head = await env.ARTIFACTS.head(artifactKey(done.output_file_id));
    expect(head?.customMetadata?.expires_at).toBe(done.output_file_expires_at);
    expect((await call(`/v1/artifacts/${done.output_file_id}`, { key: t.api_key })).status).toBe(200);

    // The retention runs out: the alarm is due then, and deletes the file.
    const due = await runInDurableObject(batchStub(done.batch_id), async (_o, state) => {
      const alarm = await state.storage.getAlarm();
      state.storage.sql.exec("UPDATE batch SET output_expires_at = ? WHERE id = 1", new Date(Date.now() - 1000).toISOString());
      await state.storage.setAlarm(Date.now());
      return alarm;
    });
    expect(due).toBe(expires);
    await runDurableObjectAlarm(batchStub(done.batch_id));
    // The alarm may have run on its own just before: its outcome is read either way.
    for (let i = 0; i < 100 && (await env.ARTIFACTS.head(artifactKey(done.output_file_id))); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await env.ARTIFACTS.head(artifactKey(done.output_file_id))).toBeNull();
    const after = await getBatch(t, done.batch_id);
    expect(after.json).toMatchObject({ output_file_id: done.output_file_id, output_file_url: null });
    expect(Date.parse(after.json.output_file_expires_at)).toBeLessThan(Date.now());
    expect((await call(`/v1/artifacts/${done.output_file_id}`, { key: t.api_key })).status).toBe(404);
    // Nothing more to wait for: no alarm is left set for the file.
    const left = await runInDurableObject(batchStub(done.batch_id), (_o, state) => state.storage.getAlarm());
    expect(left).toBeNull();
  });
});
