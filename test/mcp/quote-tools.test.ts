/**
 * get_quote and max_credits through the official MCP client: the quote a tool call would cost,
 * binding on the tool call that passes its quote_id with the same arguments; and the cost cap as
 * an argument of every media tool.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dec, fmt } from "../../src/lib/decimal";
import { OPERATIONS } from "../../src/operations";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { expectLedgerBalanced, taskEvents } from "../helpers/tasks";
import { callError, callOk, connect, waitUntilDone } from "./helpers";

const IMAGE = { prompt: "a windmill in a tulip field", canvas: { type: "preset", tier: "1K", aspect: "1:1" } };

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "5000" });
});

describe("get_quote", () => {
  it("answers the REST quote's shape, and the media tool called with its quote_id runs on the quoted model within its credits", async () => {
    const client = await connect(t.api_key);
    const quoted = await callOk(client, "get_quote", {
      operation: "text_to_image",
      arguments: { ...IMAGE, idempotency_key: "k-1" },
    });
    const q = quoted.structuredContent;
    expect(q).toMatchObject({ object: "quote", operation: "text_to_image" });
    expect(q.quote_id).toMatch(/^quo_/);
    expect(quoted.content[0].text).toContain(q.quote_id);
    expect(quoted.content[0].text).toContain(q.credits);
    // The REST door prices the same request alike.
    const rest = await call("/v1/quotes", { key: t.api_key, body: { operation: "text_to_image", request: IMAGE } });
    expect(rest.json).toMatchObject({ resolved_model: q.resolved_model, credits: q.credits, lines: q.lines });

    const created = await callOk(client, "text_to_image", { ...IMAGE, quote_id: q.quote_id, idempotency_key: "k-1" });
    const task = created.structuredContent;
    expect(task.resolved_model).toBe(q.resolved_model);
    const reserve = (await taskEvents(task.task_id)).find((e) => e.kind === "reserve");
    expect(reserve?.detail.amount).toBe(q.credits);
    const done = await waitUntilDone(client, task.task_id);
    expect(done.structuredContent.status).toBe("succeeded");
    expect(dec(done.structuredContent.usage.credits).lte(q.credits)).toBe(true);
    // Another call with the same quote (a new idempotency key) is refused: one quote, one task.
    const used = await callError(client, "text_to_image", { ...IMAGE, quote_id: q.quote_id });
    expect(used).toMatchObject({ code: "invalid_request", param: "/quote_id", details: { reason: "quote_used" } });
    await expectLedgerBalanced(t.tenant_id);
  });

  it("fails as the tool call would, at the same param", async () => {
    const client = await connect(t.api_key);
    const viaTool = await callError(client, "text_to_image", { ...IMAGE, prompt: "" });
    const viaQuote = await callError(client, "get_quote", { operation: "text_to_image", arguments: { ...IMAGE, prompt: "" } });
    expect(viaQuote).toMatchObject({ code: viaTool.code, param: viaTool.param });
    const unknown = await callError(client, "get_quote", { operation: "text_to_nothing", arguments: IMAGE });
    expect(unknown.param).toBe("/operation");
  });
});

describe("max_credits on the media tools", () => {
  it("every media tool declares it", async () => {
    const client = await connect(t.api_key);
    const { tools } = await client.listTools();
    for (const spec of OPERATIONS) {
      const tool = tools.find((x) => x.name === spec.capability);
      expect(tool?.inputSchema.properties, spec.capability).toHaveProperty("max_credits");
      expect(tool?.inputSchema.properties, spec.capability).toHaveProperty("quote_id");
    }
  });

  it("refuses a concrete model priced above it, with the estimate", async () => {
    const client = await connect(t.api_key);
    const q = (await callOk(client, "get_quote", { operation: "text_to_image", arguments: IMAGE })).structuredContent;
    const cap = fmt(dec(q.credits).minus("0.000000001"));
    const e = await callError(client, "text_to_image", { ...IMAGE, model: q.resolved_model, max_credits: cap });
    expect(e).toMatchObject({ code: "invalid_request", param: "/max_credits", details: { estimate_credits: q.credits } });
  });
});
