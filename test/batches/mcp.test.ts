/** create_batch and get_batch through the official MCP client: the same batch and refusals as the REST door. */
import { describe, expect, it } from "vitest";
import { newTenant } from "../helpers/api";
import { callError, callOk, connect } from "../mcp/helpers";
import { getBatch, imageItems, waitForBatch } from "./helpers";

describe("MCP batch tools", () => {
  it("create_batch starts a batch the REST API reads, get_batch follows it; a retry with its idempotency_key answers the same batch", async () => {
    const t = await newTenant({ mode: "test" });
    const client = await connect(t.api_key);
    const args = { operation: "text_to_image", items: imageItems(3), concurrency: 2, idempotency_key: "mcp-batch-1" };
    const created = await callOk(client, "create_batch", args);
    const batch = created.structuredContent;
    expect(batch).toMatchObject({ object: "batch", status: "queued", counts: { total: 3 }, concurrency: 2 });
    expect(created.content[0].text).toContain(batch.batch_id);
    await waitForBatch(t, batch.batch_id);
    const read = await callOk(client, "get_batch", { batch_id: batch.batch_id });
    expect(read.structuredContent).toEqual((await getBatch(t, batch.batch_id)).json);
    expect(read.structuredContent.counts.succeeded).toBe(3);
    expect((await callOk(client, "create_batch", args)).structuredContent.batch_id).toBe(batch.batch_id);
  });

  it("refuses an invalid item at the same param as the REST door, and another tenant's batch", async () => {
    const t = await newTenant({ mode: "test" });
    const client = await connect(t.api_key);
    const items = imageItems(3);
    items[1] = { custom_id: "item-1", body: { prompt: "" } };
    const e = await callError(client, "create_batch", { operation: "text_to_image", items });
    expect(e).toMatchObject({ code: "invalid_request", param: "/items/1/body/prompt" });
    const other = await newTenant({ mode: "test" });
    const created = await callOk(client, "create_batch", { operation: "text_to_image", items: imageItems(1) });
    const foreign = await callError(await connect(other.api_key), "get_batch", { batch_id: created.structuredContent.batch_id });
    expect(foreign.code).toBe("not_found");
  });
});
