import { describe, expect, it } from "vitest";
import { json, testClient } from "./fake-fetch.js";

const batch = (status: string, succeeded: number) => ({
  object: "batch",
  batch_id: "batch_1",
  operation: "text_to_image",
  status,
  counts: { total: 2, queued: 2 - succeeded, running: 0, succeeded, failed: 0, canceled: 0 },
  links: { self: "/v1/batches/batch_1", items: "/v1/batches/batch_1/items", cancel: "/v1/batches/batch_1/cancel" },
});

describe("batches", () => {
  it("create sends an Idempotency-Key; wait reads the batch until it has ended, reporting each read", async () => {
    const reads = [batch("running", 0), batch("running", 1), batch("completed", 2)];
    const { client, seen, waits } = testClient({
      "POST /v1/batches": () => json(202, batch("queued", 0)),
      "GET /v1/batches/batch_1": (_req, n) => json(200, reads[n] ?? reads[2]),
    });
    const created = await client.batches.create({
      operation: "text_to_image",
      items: [{ custom_id: "a", body: { prompt: "x" } }],
    });
    expect(created.status).toBe("queued");
    expect(seen[0]?.headers.get("Idempotency-Key")).toBeTruthy();
    expect(JSON.parse(seen[0]?.body as string).items[0].custom_id).toBe("a");
    const progress: number[] = [];
    const done = await client.batches.wait(created, { pollIntervalMs: 10, onProgress: (b) => progress.push(b.counts.succeeded) });
    expect(done.status).toBe("completed");
    expect(progress).toEqual([0, 1, 2]);
    expect(waits).toEqual([10, 10]);
  });

  it("items, list and cancel call their routes with the batch id and query", async () => {
    const { client, seen } = testClient({
      "GET /v1/batches/batch_1/items": () => json(200, { object: "list", data: [], has_more: false, next_cursor: null }),
      "GET /v1/batches": () => json(200, { object: "list", data: [], has_more: false, next_cursor: null }),
      "POST /v1/batches/batch_1/cancel": () => json(200, batch("canceling", 0)),
    });
    await client.batches.items("batch_1", { status: "failed", limit: 5 });
    expect(seen[0]?.url.searchParams.get("status")).toBe("failed");
    await client.batches.list({ limit: 3 });
    expect(seen[1]?.url.searchParams.get("limit")).toBe("3");
    expect((await client.batches.cancel({ batch_id: "batch_1" })).status).toBe("canceling");
  });
});
