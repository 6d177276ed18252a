import { describe, expect, it } from "vitest";
import { call, expectError, newTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";
import { allItems, createBatch, imageItems, outputLines, waitForBatch } from "./helpers";

describe("POST /v1/batches with inline items", () => {
  it("202 with the batch envelope; every item runs as a task of the batch; the output file holds them in order", async () => {
    const t = await newTenant({ mode: "test" });
    const res = await createBatch(t, {
      operation: "text_to_image",
      items: imageItems(12),
      concurrency: 3,
      metadata: { run: "a" },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json).toMatchObject({
      object: "batch",
      operation: "text_to_image",
      status: "queued",
      counts: { total: 12, queued: 12, running: 0, succeeded: 0, failed: 0, canceled: 0 },
      concurrency: 3,
      max_credits: null,
      metadata: { run: "a" },
      started_at: null,
      completed_at: null,
    });
    expect(res.json.batch_id).toMatch(/^batch_[0-9a-f]{64}$/);
    expect(res.json.links.items).toBe(`${res.json.links.self}/items`);
    const done = await waitForBatch(t, res.json.batch_id);
    expect(done.status).toBe("completed");
    expect(done.counts).toEqual({ total: 12, queued: 0, running: 0, succeeded: 12, failed: 0, canceled: 0 });
    expect(done.started_at).not.toBeNull();
    expect(done.completed_at).not.toBeNull();

    const items = await allItems(t, res.json.batch_id);
    expect(items.map((i) => i.custom_id)).toEqual(imageItems(12).map((i) => i.custom_id));
    for (const item of items) {
      expect(item.status).toBe("succeeded");
      const task = await call(`/v1/tasks/${item.task_id}`, { key: t.api_key });
      expect(task.json).toMatchObject({ status: "succeeded", batch_id: res.json.batch_id, custom_id: item.custom_id });
    }
    const lines = await outputLines(t, done);
    expect(lines.map((l) => l.custom_id)).toEqual(items.map((i) => i.custom_id));
    expect(lines.map((l) => l.task_id)).toEqual(items.map((i) => i.task_id));
    for (const l of lines) {
      expect(l.status).toBe("succeeded");
      expect(l.output.images.length).toBeGreaterThan(0);
      expect(l.usage.image_count).toBeGreaterThan(0);
      expect(l.billing).toHaveProperty("net_charged_credits");
    }
    // The signed URL serves the same file without a key.
    const signed = new URL(done.output_file_url);
    const file = await call(`${signed.pathname}${signed.search}`);
    expect(file.status).toBe(200);
    expect(file.text.split("\n").filter(Boolean)).toHaveLength(12);

    // GET /v1/tasks?batch_id= lists the batch's tasks in item order.
    const listed = await call(`/v1/tasks?batch_id=${res.json.batch_id}&limit=5`, { key: t.api_key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.data.map((x: any) => x.custom_id)).toEqual(["item-0", "item-1", "item-2", "item-3", "item-4"]);
    expect(listed.json.has_more).toBe(true);
    const rest = await call(`/v1/tasks?batch_id=${res.json.batch_id}&limit=100&cursor=${listed.json.next_cursor}`, {
      key: t.api_key,
    });
    expect(rest.json.data.map((x: any) => x.custom_id)).toEqual(items.slice(5).map((i) => i.custom_id));
  });

  it("a retry with the same Idempotency-Key and body answers the same batch and makes no new task; another body is a conflict", async () => {
    const t = await newTenant({ mode: "test" });
    const key = newKey();
    const body = { operation: "text_to_image", items: imageItems(3) };
    const first = await createBatch(t, body, key);
    expect(first.status, first.text).toBe(202);
    await waitForBatch(t, first.json.batch_id);
    const again = await createBatch(t, body, key);
    expect(again.status).toBe(202);
    expect(again.json.batch_id).toBe(first.json.batch_id);
    expect(again.json.counts.succeeded).toBe(3);
    const tasks = await call("/v1/tasks?limit=100", { key: t.api_key });
    expect(tasks.json.data).toHaveLength(3);
    expectError(await createBatch(t, { ...body, items: imageItems(4) }, key), 409, "idempotency_conflict");
  });

  it("an invalid item refuses the whole batch with a pointer into it, and nothing starts", async () => {
    const t = await newTenant({ mode: "test" });
    const items = imageItems(30);
    items[17] = { custom_id: "item-17", body: { prompt: 42 } as any };
    items[21] = { custom_id: "item-21", body: { prompt: "fine", model: "no-such-model" } };
    const res = await createBatch(t, { operation: "text_to_image", items });
    const e = expectError(res, 422, "invalid_request", "/items/17/body/prompt");
    expect(e.details.invalid_items).toBe(2);
    expect(e.details.errors[0]).toMatchObject({ loc: ["body", "items", 17, "body", "prompt"], param: "/items/17/body/prompt" });
    expect(e.details.errors.some((x: any) => x.param === "/items/21/body/model")).toBe(true);
    const tasks = await call("/v1/tasks?limit=100", { key: t.api_key });
    expect(tasks.json.data).toHaveLength(0);
  });

  it("refuses duplicate custom_ids, an item's own callback_url, a missing Idempotency-Key and a bad concurrency", async () => {
    const t = await newTenant({ mode: "test" });
    const dup = imageItems(3);
    dup[2] = { ...dup[2], custom_id: "item-0" } as any;
    expectError(await createBatch(t, { operation: "text_to_image", items: dup }), 422, "invalid_request", "/items/2/custom_id");
    const cb = imageItems(2);
    cb[1] = { custom_id: "item-1", body: { prompt: "x", callback_url: "https://example.com/cb" } };
    expectError(
      await createBatch(t, { operation: "text_to_image", items: cb }),
      422,
      "invalid_request",
      "/items/1/body/callback_url",
    );
    expectError(await createBatch(t, { operation: "text_to_image", items: imageItems(1) }, null), 422, "invalid_request");
    expectError(
      await createBatch(t, { operation: "text_to_image", items: imageItems(1), concurrency: 101 }),
      422,
      "invalid_request",
      "/concurrency",
    );
    expectError(await createBatch(t, { operation: "text_to_image", items: imageItems(1001) }), 422, "invalid_request", "/items");
  });
});
