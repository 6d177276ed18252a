/**
 * Who may call /mcp and which tools: the 401 challenge that leads a client to the authorization
 * server, the endpoint's own 403 step-up challenge, and each tool's scope as a tool error.
 */
import { describe, expect, it } from "vitest";
import { admin, expectError, newTenant } from "../helpers/api";
import { callError, callOk, connect, RESOURCE_METADATA, rawModern } from "./helpers";

const SCOPE = 'scope="catalog:read tasks:read tasks:write logs:read"';

describe("401", () => {
  it("without credentials: unauthorized, and a challenge naming the resource metadata", async () => {
    const res = await rawModern(null, "tools/list");
    expectError(res, 401, "unauthorized");
    const challenge = res.headers.get("WWW-Authenticate") ?? "";
    expect(challenge).toBe(`Bearer resource_metadata="${RESOURCE_METADATA}", ${SCOPE}`);
  });

  it("with an unknown key or access token: invalid_api_key and error=invalid_token", async () => {
    const unknownKey = `sk_us_live_${"A".repeat(43)}`;
    const unknownToken = `mcp_at_us_${"0".repeat(26)}_${"x".repeat(43)}`;
    for (const token of [unknownKey, unknownToken]) {
      const res = await rawModern(token, "tools/list");
      expectError(res, 401, "invalid_api_key");
      expect(res.headers.get("WWW-Authenticate")).toBe(
        `Bearer error="invalid_token", resource_metadata="${RESOURCE_METADATA}", ${SCOPE}`,
      );
    }
    const malformed = await rawModern("not-a-credential", "tools/list");
    expectError(malformed, 401, "unauthorized");
    expect(malformed.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it("another region's key is refused as on /v1, without a challenge", async () => {
    const res = await rawModern(`sk_eu_live_${"A".repeat(43)}`, "tools/list");
    expectError(res, 400, "api_key_region_mismatch");
    expect(res.headers.get("WWW-Authenticate")).toBeNull();
  });

  it("the client SDK without a token is refused at connect", async () => {
    await expect(connect("")).rejects.toMatchObject({ code: expect.anything() });
  });
});

describe("endpoint scope", () => {
  it("a key holding none of the scopes gets 403 insufficient_scope with a step-up challenge", async () => {
    const t = await newTenant();
    expect((await admin(`/admin/v1/api-keys/${t.key_id}/permissions`, { permissions: [] })).status).toBe(200);
    const res = await rawModern(t.api_key, "tools/list");
    const error = expectError(res, 403, "insufficient_scope");
    expect(error.type).toBe("permission_error");
    expect(error.retryable).toBe(false);
    expect(error.details.missing_scopes).toEqual(["catalog:read", "tasks:read", "tasks:write", "logs:read"]);
    expect(res.headers.get("WWW-Authenticate")).toBe(
      `Bearer error="insufficient_scope", ${SCOPE}, resource_metadata="${RESOURCE_METADATA}"`,
    );
  });

  it("a chat-only key may connect and read its balance, and nothing else", async () => {
    const t = await newTenant({ permissions: ["chat"] });
    const client = await connect(t.api_key);
    await callOk(client, "get_balance");
    const e = await callError(client, "list_models");
    expect(e).toMatchObject({ code: "insufficient_scope", jsonrpc_code: -32602, details: { missing_scopes: ["catalog:read"] } });
  });
});

describe("tool scopes", () => {
  it("a key without tasks:write cannot create or cancel tasks: insufficient_scope naming tasks:write", async () => {
    const t = await newTenant({ permissions: ["catalog:read", "tasks:read"] });
    for (const era of ["modern", "legacy"] as const) {
      const client = await connect(t.api_key, era);
      const e = await callError(client, "text_to_image", { prompt: "a lighthouse" });
      expect(e).toMatchObject({
        code: "insufficient_scope",
        type: "permission_error",
        retryable: false,
        jsonrpc_code: -32602,
        details: { missing_scopes: ["tasks:write"] },
      });
      const c = await callError(client, "cancel_task", { task_id: `task_${"0".repeat(64)}` });
      expect(c.details.missing_scopes).toEqual(["tasks:write"]);
      // What it holds works.
      await callOk(client, "list_tasks");
      await callOk(client, "list_models");
    }
  });

  it("the scope is checked before the arguments", async () => {
    const t = await newTenant({ permissions: ["tasks:write"] });
    const client = await connect(t.api_key);
    const e = await callError(client, "get_task", { task_id: 42 });
    expect(e).toMatchObject({ code: "insufficient_scope", details: { missing_scopes: ["tasks:read"] } });
    const v = await callError(client, "list_voices", { language: "english!" });
    expect(v).toMatchObject({ code: "insufficient_scope", details: { missing_scopes: ["catalog:read"] } });
  });
});
