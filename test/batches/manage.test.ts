import { describe, expect, it } from "vitest";
import { call, expectError, newTenant } from "../helpers/api";
import { ledger } from "../helpers/tasks";
import { allItems, createBatch, getBatch, imageItems, outputLines, waitForBatch } from "./helpers";

describe("reading, listing and canceling batches", () => {
  it("GET /v1/batches lists the key's batches newest first with a cursor; another tenant's batch is 404", async () => {
    const t = await newTenant({ mode: "test" });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await createBatch(t, { operation: "text_to_image", items: imageItems(1) });
      expect(res.status, res.text).toBe(202);
      ids.push(res.json.batch_id);
      await new Promise((r) => setTimeout(r, 5));
    }
    const first = await call("/v1/batches?limit=2", { key: t.api_key });
    expect(first.status, first.text).toBe(200);
    expect(first.json.data.map((b: any) => b.batch_id)).toEqual([ids[2], ids[1]]);
    expect(first.json.has_more).toBe(true);
    const second = await call(`/v1/batches?limit=2&cursor=${first.json.next_cursor}`, { key: t.api_key });
    expect(second.json.data.map((b: any) => b.batch_id)).toEqual([ids[0]]);
    expect(second.json.has_more).toBe(false);
    expectError(await call("/v1/batches?cursor=bogus", { key: t.api_key }), 400, "invalid_cursor", "/cursor");

    const other = await newTenant({ mode: "test" });
    expectError(await getBatch(other, ids[0] as string), 404, "not_found");
    expectError(await call(`/v1/batches/${ids[0]}/items`, { key: other.api_key }), 404, "not_found");
    expectError(await call(`/v1/batches/${ids[0]}/cancel`, { key: other.api_key, method: "POST" }), 404, "not_found");
    expectError(await getBatch(t, "batch_nope"), 404, "not_found");
    expect((await call("/v1/batches", { key: other.api_key })).json.data).toEqual([]);
  });

  it("items are paged in order and filtered by status", async () => {
    const t = await newTenant({ mode: "test" });
    const items = imageItems(7);
    const res = await createBatch(t, { operation: "text_to_image", items });
    await waitForBatch(t, res.json.batch_id);
    const page = await call(`/v1/batches/${res.json.batch_id}/items?limit=3`, { key: t.api_key });
    expect(page.json.data.map((i: any) => i.custom_id)).toEqual(["item-0", "item-1", "item-2"]);
    expect(page.json.data[0]).toMatchObject({ object: "batch_item", status: "succeeded" });
    expect(page.json.data[0].task_id).toMatch(/^task_/);
    expect((await allItems(t, res.json.batch_id)).map((i) => i.custom_id)).toEqual(items.map((i) => i.custom_id));
    expect(await allItems(t, res.json.batch_id, "&status=failed")).toEqual([]);
    expect(await allItems(t, res.json.batch_id, "&status=succeeded")).toHaveLength(7);
  });

  it("cancel mid-way: queued items end canceled at once, running tasks are stopped, finished ones are kept", async () => {
    const t = await newTenant({ mode: "test" });
    // Five items finish; the rest never would (the sandbox holds them) until canceled.
    const items = imageItems(20, (i) => ({
      prompt: `cancel me ${i}`,
      ...(i >= 5 ? { metadata: { sandbox_fault: "hang" } } : {}),
    }));
    const res = await createBatch(t, { operation: "text_to_image", items, concurrency: 2 });
    expect(res.status, res.text).toBe(202);
    const id = res.json.batch_id;
    const midway = await waitForBatch(t, id, (b) => b.counts.succeeded === 5 && b.counts.running === 2);
    expect(midway.status).toBe("running");
    const canceled = await call(`/v1/batches/${id}/cancel`, { key: t.api_key, method: "POST" });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.json.cancel_requested_at).not.toBeNull();
    expect(canceled.json.counts.queued).toBe(0);
    const done = await waitForBatch(t, id);
    expect(done.status).toBe("canceled");
    expect(done.counts).toEqual({ total: 20, queued: 0, running: 0, succeeded: 5, failed: 0, canceled: 15 });
    const all = await allItems(t, id);
    const neverStarted = all.filter((i) => i.task_id === null);
    expect(neverStarted).toHaveLength(13);
    for (const i of neverStarted) expect(i.error.details.reason).toBe("batch_canceled");
    for (const i of all.filter((x) => x.status === "canceled" && x.task_id)) {
      expect((await call(`/v1/tasks/${i.task_id}`, { key: t.api_key })).json.status).toBe("canceled");
    }
    const lines = await outputLines(t, done);
    expect(lines.map((l) => l.status)).toEqual(all.map((i) => i.status));
    // Canceling again changes nothing.
    const again = await call(`/v1/batches/${id}/cancel`, { key: t.api_key, method: "POST" });
    expect(again.json.counts).toEqual(done.counts);
  });

  it("max_credits reached mid-way: the batch never holds or spends more, and the rest end batch_budget_exhausted", async () => {
    const t = await newTenant({ credits: "100000" });
    const probe = await createBatch(t, { operation: "text_to_image", items: imageItems(1), max_credits: "0" });
    expect(probe.status, probe.text).toBe(202);
    const each = Number((await waitForBatch(t, probe.json.batch_id)).billing.estimated_credits);
    expect(each).toBeGreaterThan(0);
    const before = await ledger(t.tenant_id);
    const max = (each * 3.5).toFixed(9);
    const res = await createBatch(t, { operation: "text_to_image", items: imageItems(12), max_credits: max, concurrency: 4 });
    expect(res.status, res.text).toBe(202);
    const done = await waitForBatch(t, res.json.batch_id);
    expect(done.status).toBe("completed");
    expect(done.counts.succeeded).toBeGreaterThanOrEqual(3);
    expect(done.counts.succeeded + done.counts.canceled).toBe(12);
    expect(done.counts.canceled).toBeGreaterThan(0);
    const spent = Number(done.billing.charged_credits) - Number(done.billing.refunded_credits);
    expect(spent).toBeLessThanOrEqual(Number(max));
    const after = await ledger(t.tenant_id);
    expect(Number(before.balance) - Number(after.balance)).toBeCloseTo(spent, 6);
    for (const i of await allItems(t, res.json.batch_id, "&status=canceled")) {
      expect(i.task_id).toBeNull();
      expect(i.error.details.reason).toBe("batch_budget_exhausted");
    }
  });
});
