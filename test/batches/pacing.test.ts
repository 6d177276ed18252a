/** A batch paces itself as a whole: an item its upstream rate-limits holds back the next items' start. */
import { describe, expect, it } from "vitest";
import { RATE_LIMIT_PAUSE_MS } from "../../src/batches/steps/item-ends";
import { call, newTenant } from "../helpers/api";
import { allItems, createBatch, imageItems, waitForBatch } from "./helpers";

describe("pacing", () => {
  it("after an item ends rate-limited by its upstream, the batch starts nothing more until the pause is over", async () => {
    const t = await newTenant({ mode: "test" });
    const items = imageItems(2, (i) =>
      i === 0 ? { prompt: "limited", metadata: { sandbox_fault: "rate_limited" } } : { prompt: "next" },
    );
    const res = await createBatch(t, { operation: "text_to_image", items, concurrency: 1 });
    expect(res.status, res.text).toBe(202);
    const done = await waitForBatch(t, res.json.batch_id);
    expect(done.counts).toMatchObject({ succeeded: 1, failed: 1 });
    const [first, second] = await allItems(t, res.json.batch_id);
    expect(first.error.code).toBe("model_rate_limited");
    const ended = Date.parse((await call(`/v1/tasks/${first.task_id}`, { key: t.api_key })).json.completed_at);
    const started = Date.parse((await call(`/v1/tasks/${second.task_id}`, { key: t.api_key })).json.created_at);
    expect(started - ended).toBeGreaterThanOrEqual(RATE_LIMIT_PAUSE_MS - 1000);
  }, 60_000);
});
