/**
 * /mcp with an OAuth access token instead of an API key: the caller its grant stands for (scopes
 * as permissions, the grant as the key of rate windows), narrowed to the member's role, and
 * refused with the 401 challenge once the token stops working.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { authenticateMcp } from "../../src/mcp/auth";
import { expectError } from "../helpers/api";
import { freshEmail, inviteAndSignIn } from "../helpers/console";
import { auditOf } from "../helpers/safety";
import { expireAccessTokens, ownerSignedIn, tokensFor } from "../oauth/flow";
import { callError, callOk, connect, MCP_URL, RESOURCE_METADATA, rawModern } from "./helpers";

const background = () => undefined;

function mcpRequest(token: string): Request {
  return new Request(MCP_URL, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
}

describe("an OAuth access token on /mcp", () => {
  it("stands for its grant: tenant, scopes as permissions, the grant id as the key id, live mode", async () => {
    const { browser, tenant, email } = await ownerSignedIn();
    const tokens = await tokensFor(browser);
    const { caller, via, grant } = await authenticateMcp(env, mcpRequest(tokens.access_token), background);
    expect(via).toBe("oauth");
    expect(grant).toMatchObject({ tenant_id: tenant.tenant_id, email, client_name: "Test MCP client" });
    expect(caller).toMatchObject({
      tenant_id: tenant.tenant_id,
      key_id: grant?.grant_id,
      permissions: ["catalog:read", "tasks:read", "tasks:write", "chat"],
      region: "us",
      mode: "live",
    });
    expect(caller.key_id).toMatch(/^grt_/);
  });

  it("a refresh token is not accepted as a bearer token: 401", async () => {
    const { browser } = await ownerSignedIn();
    const tokens = await tokensFor(browser);
    await expect(authenticateMcp(env, mcpRequest(tokens.refresh_token), background)).rejects.toMatchObject({ status: 401 });
  });

  it("serves the tools to the member's tenant", async () => {
    const { browser } = await ownerSignedIn();
    const tokens = await tokensFor(browser);
    const client = await connect(tokens.access_token);
    const balance = await callOk(client, "get_balance");
    expect(balance.structuredContent).toMatchObject({ mode: "live", available_credits: "1000" });
    const created = await callOk(client, "text_to_image", { prompt: "a lighthouse" });
    const listed = await callOk(await connect(tokens.access_token, "legacy"), "list_tasks");
    expect(listed.structuredContent.data.map((x: any) => x.task_id)).toContain(created.structuredContent.task_id);
  });

  it("a content refusal through a grant is audited as the member, not as a key", async () => {
    const { browser, tenant, email } = await ownerSignedIn();
    const tokens = await tokensFor(browser);
    const client = await connect(tokens.access_token);
    const e = await callError(client, "text_to_image", { prompt: "a sandbox-unsafe-test scene" });
    expect(e).toMatchObject({ code: "safety_rejected", param: "/prompt", jsonrpc_code: -32602 });
    const [entry] = await auditOf(tenant.tenant_id, "safety.refused");
    expect(entry?.actor).toMatchObject({ type: "user", email });
  });

  it("a viewer's grant is narrowed to reading: creating a task is insufficient_scope", async () => {
    const { browser } = await ownerSignedIn();
    const viewer = await inviteAndSignIn(browser, freshEmail("viewer"), "viewer");
    const tokens = await tokensFor(viewer);
    const client = await connect(tokens.access_token);
    await callOk(client, "list_tasks");
    const e = await callError(client, "text_to_image", { prompt: "a lighthouse" });
    expect(e).toMatchObject({ code: "insufficient_scope", jsonrpc_code: -32602, details: { missing_scopes: ["tasks:write"] } });
  });

  it("an expired token gets the 401 challenge with error=invalid_token", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const tokens = await tokensFor(browser);
    await expireAccessTokens(tenant.tenant_id);
    const res = await rawModern(tokens.access_token, "tools/list");
    expectError(res, 401, "invalid_api_key");
    expect(res.headers.get("WWW-Authenticate")).toBe(
      `Bearer error="invalid_token", resource_metadata="${RESOURCE_METADATA}", scope="catalog:read tasks:read tasks:write logs:read"`,
    );
  });
});
