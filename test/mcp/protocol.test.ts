/**
 * /mcp as a protocol endpoint: both eras of the official client (2026-07-28 with server/discover,
 * 2025 with initialize), the tool list and its schemas, the HTTP methods and the Origin rule.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/operations";
import { imageGeneration } from "../../src/operations/images";
import { SANITY_BOUNDS } from "../../src/operations/shared";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { connect, MCP_URL, rawModern, TASKS_EXTENSION, workerFetch } from "./helpers";

const OTHER_TOOLS = [
  "get_task",
  "wait_for_task",
  "cancel_task",
  "delete_task_outputs",
  "list_tasks",
  "create_batch",
  "get_batch",
  "list_models",
  "get_model",
  "list_voices",
  "get_balance",
  "get_quote",
  "list_requests",
  "get_request",
];

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant();
});

describe("eras", () => {
  it("a 2026-07-28 client discovers the server, its tools and the tasks extension", async () => {
    const client = await connect(t.api_key, "modern");
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getServerVersion()).toMatchObject({ name: "media-gateway" });
    const caps = client.getServerCapabilities();
    expect(caps?.tools).toBeDefined();
    expect(caps?.extensions?.[TASKS_EXTENSION]).toEqual({});
    const balance = await client.callTool({ name: "get_balance", arguments: {} });
    expect(balance.structuredContent).toMatchObject({ object: "balance", available_credits: "1000" });
  });

  it("a 2025 client initializes and calls the same tools; the tasks extension is not offered to it", async () => {
    const client = await connect(t.api_key, "legacy");
    expect(client.getProtocolEra()).toBe("legacy");
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION]).toBeUndefined();
    const balance = await client.callTool({ name: "get_balance", arguments: {} });
    expect(balance.structuredContent).toMatchObject({ object: "balance", available_credits: "1000" });
  });

  it("server/discover over a raw request carries the capabilities and the cache hint", async () => {
    const res = await rawModern(t.api_key, "server/discover");
    expect(res.status).toBe(200);
    const result = res.message.result;
    expect(result.supportedVersions).toContain("2026-07-28");
    expect(result.capabilities.extensions[TASKS_EXTENSION]).toEqual({});
    expect(result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("media-gateway");
    expect(result).toMatchObject({ ttlMs: 600_000, cacheScope: "public" });
  });
});

describe("tools/list", () => {
  it("lists one tool per operation, then the task and catalog tools, in a fixed order with both schemas", async () => {
    const client = await connect(t.api_key);
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toEqual([...OPERATIONS.map((o) => o.capability), ...OTHER_TOOLS]);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.description?.length, tool.name).toBeGreaterThan(20);
    }
    const again = await (await connect(t.api_key, "legacy")).listTools();
    expect(again.tools.map((x) => x.name)).toEqual(tools.map((x) => x.name));
    expect(again.tools.map((x) => x.inputSchema)).toEqual(tools.map((x) => x.inputSchema));
  });

  it("an operation tool's arguments are the REST body's schema plus idempotency_key", async () => {
    const client = await connect(t.api_key);
    const { tools } = await client.listTools();
    const tool = tools.find((x) => x.name === "text_to_image") as any;
    const input = tool.inputSchema;
    expect(input.required).toEqual(["prompt"]);
    expect(input.additionalProperties).toBe(false);
    expect(input.properties.prompt).toMatchObject({
      type: "string",
      minLength: 1,
      maxLength: SANITY_BOUNDS.image_prompt_characters,
    });
    expect(input.properties.count).toMatchObject({ type: "integer", minimum: 1, maximum: 4, default: 1 });
    expect(input.properties.canvas).toEqual({ $ref: "#/$defs/Canvas" });
    expect(input.$defs.Canvas.oneOf).toHaveLength(2);
    expect(input.properties.idempotency_key).toMatchObject({ type: "string", minLength: 1, maxLength: 128 });
    // The REST body's field set, and nothing of OpenAPI's own vocabulary.
    const restFields = Object.keys((imageGeneration.schema as any).shape);
    expect(Object.keys(input.properties).sort()).toEqual([...restFields, "idempotency_key"].sort());
    expect(JSON.stringify(input)).not.toContain('"example"');
    expect(JSON.stringify(input)).not.toContain("#/components/");
    // The result is the task envelope, or the error object of a failed call.
    expect(tool.outputSchema.anyOf).toEqual([{ $ref: "#/$defs/TaskEnvelope" }, { $ref: "#/$defs/ToolError" }]);
    const envelope = tool.outputSchema.$defs.TaskEnvelope;
    expect(envelope.properties.task_id).toEqual({ type: "string" });
    expect(envelope.properties.status.enum).toEqual(["queued", "running", "succeeded", "failed", "canceled"]);
    expect(tool.outputSchema.$defs.ToolError.required).toEqual(["error"]);
    expect(tool.outputSchema.$defs.ToolError.properties.error.required).toContain("jsonrpc_code");
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
  });

  it("tools/list on a raw 2026-07-28 request carries the list's cache fields", async () => {
    const res = await rawModern(t.api_key, "tools/list");
    expect(res.status).toBe(200);
    expect(res.message.result).toMatchObject({ resultType: "complete", ttlMs: 600_000, cacheScope: "public" });
  });

  it("an unknown tool is a protocol error (-32602), not a tool result", async () => {
    const res = await rawModern(t.api_key, "tools/call", { name: "make_coffee", arguments: {} });
    expect(res.message.error).toMatchObject({ code: -32602 });
    expect(res.message.error.message).toContain("make_coffee");
  });
});

describe("HTTP", () => {
  it("GET and DELETE answer 405 (no session, no standalone stream)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await workerFetch(MCP_URL, { method, headers: { Authorization: `Bearer ${t.api_key}` } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("Allow")).toBe("POST, OPTIONS");
    }
  });

  it("answers a CORS preflight, and grants an https origin on the answer, errors included", async () => {
    const pre = await workerFetch(MCP_URL, {
      method: "OPTIONS",
      headers: {
        Origin: "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, mcp-method, mcp-name, mcp-protocol-version",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("Access-Control-Allow-Origin")).toBe("https://app.example");
    const allowed = (pre.headers.get("Access-Control-Allow-Headers") ?? "").toLowerCase();
    for (const h of ["authorization", "content-type", "mcp-method", "mcp-name", "mcp-protocol-version"])
      expect(allowed).toContain(h);
    expect(pre.headers.get("Access-Control-Allow-Methods")).toContain("POST");

    const ok = await rawModern(t.api_key, "tools/list", {}, { headers: { Origin: "https://app.example" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe("https://app.example");
    const refused = await rawModern(null, "tools/list", {}, { headers: { Origin: "https://app.example" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBe("https://app.example");
    expect(refused.headers.get("Access-Control-Expose-Headers")).toContain("WWW-Authenticate");
  });

  it("refuses an Origin it does not accept with 403, before authentication", async () => {
    for (const origin of ["null", "http://evil.example", "https://app.example/path", "not a url"]) {
      const res = await rawModern(t.api_key, "tools/list", {}, { headers: { Origin: origin } });
      expectError(res, 403, "forbidden");
      expect(res.headers.get("Access-Control-Allow-Origin"), origin).toBeNull();
    }
    // Local development allows loopback pages (ALLOW_LOOPBACK_URLS).
    const local = await rawModern(t.api_key, "tools/list", {}, { headers: { Origin: "http://localhost:6274" } });
    expect(local.status).toBe(200);
  });

  it("/mcp is not part of the REST document", async () => {
    const doc = await call("/openapi.json");
    expect(Object.keys(doc.json.paths)).not.toContain("/mcp");
  });
});
