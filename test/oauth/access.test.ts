/**
 * resolveAccessToken, the seam /mcp relies on: what an access token stands for right now, read
 * from the tenant's account (grant, member, role) on every call.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { looksLikeAccessToken, resolveAccessToken } from "../../src/oauth/access";
import { admin, BASE } from "../helpers/api";
import { freshEmail, inviteAndSignIn } from "../helpers/console";
import { expireAccessTokens, ownerSignedIn, RESOURCE, tokensFor, userIdOf } from "./flow";

describe("resolveAccessToken", () => {
  it("tells our access tokens from API keys by their prefix", () => {
    expect(looksLikeAccessToken(`mcp_at_us_${"a".repeat(26)}_${"b".repeat(43)}`)).toBe(true);
    expect(looksLikeAccessToken("sk_us_live_abc")).toBe(false);
    expect(looksLikeAccessToken(`mcp_rt_us_${"a".repeat(26)}_${"b".repeat(43)}`)).toBe(false);
  });

  it("a valid token: the grant's tenant, member, client, scopes and when it ends", async () => {
    const { browser, tenant, email } = await ownerSignedIn();
    const t = await tokensFor(browser);
    const before = Date.now();
    const caller = await resolveAccessToken(env, t.access_token, RESOURCE);
    expect(caller).toMatchObject({
      tenant_id: tenant.tenant_id,
      user_id: await userIdOf(tenant.tenant_id, email),
      email,
      client_id: t.client,
      client_name: "Test MCP client",
      scopes: ["catalog:read", "tasks:read", "tasks:write", "chat"],
      region: "us",
    });
    expect(caller.expires_at).toBeGreaterThan(before + 59 * 60 * 1000);
    expect(caller.expires_at).toBeLessThanOrEqual(before + 60 * 60 * 1000 + 1000);
  });

  it("an expired token is invalid_api_key", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const t = await tokensFor(browser);
    await expireAccessTokens(tenant.tenant_id);
    await expect(resolveAccessToken(env, t.access_token, RESOURCE)).rejects.toMatchObject({
      code: "invalid_api_key",
      status: 401,
    });
  });

  it("a grant revoked in the console stops its tokens at once", async () => {
    const { browser } = await ownerSignedIn();
    const t = await tokensFor(browser);
    const caller = await resolveAccessToken(env, t.access_token, RESOURCE);
    await browser.get("/console/connections");
    const res = await browser.post(`/console/connections/${caller.grant_id}/revoke`, {});
    expect(res.status).toBe(303);
    await expect(resolveAccessToken(env, t.access_token, RESOURCE)).rejects.toMatchObject({ code: "invalid_api_key" });
  });

  it("a member removed from the tenant: their tokens stop and their grants are revoked", async () => {
    const { browser: owner, tenant } = await ownerSignedIn();
    const email = freshEmail("leaver");
    const dev = await inviteAndSignIn(owner, email, "developer");
    const t = await tokensFor(dev);
    await expect(resolveAccessToken(env, t.access_token, RESOURCE)).resolves.toBeDefined();
    await owner.get("/console/members");
    const removed = await owner.post(`/console/members/${await userIdOf(tenant.tenant_id, email)}/remove`, {});
    expect(removed.status).toBe(303);
    await expect(resolveAccessToken(env, t.access_token, RESOURCE)).rejects.toMatchObject({ code: "invalid_api_key" });
    expect(await env.ACCOUNTS.getByName(tenant.tenant_id).oauthGrants()).toEqual([]);
  });

  it("a demoted member's tokens keep only what the new role allows", async () => {
    const { browser: owner, tenant } = await ownerSignedIn();
    const email = freshEmail("demoted");
    const dev = await inviteAndSignIn(owner, email, "developer");
    const t = await tokensFor(dev);
    expect((await resolveAccessToken(env, t.access_token, RESOURCE)).scopes).toEqual([
      "catalog:read",
      "tasks:read",
      "tasks:write",
      "chat",
    ]);
    await owner.get("/console/members");
    const changed = await owner.post(`/console/members/${await userIdOf(tenant.tenant_id, email)}/role`, { role: "viewer" });
    expect(changed.status).toBe(303);
    expect((await resolveAccessToken(env, t.access_token, RESOURCE)).scopes).toEqual(["catalog:read", "tasks:read"]);
  });

  it("another audience, another region, a disabled tenant, a forged or malformed token", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const t = await tokensFor(browser);
    await expect(resolveAccessToken(env, t.access_token, `${BASE}/other`)).rejects.toMatchObject({ code: "invalid_api_key" });
    await expect(resolveAccessToken(env, t.access_token, "https://evil.example.net/mcp")).rejects.toMatchObject({
      code: "invalid_api_key",
    });
    await expect(resolveAccessToken(env, t.access_token.replace("mcp_at_us_", "mcp_at_eu_"), RESOURCE)).rejects.toMatchObject({
      code: "api_key_region_mismatch",
      status: 400,
      details: { key_region: "eu", endpoint_region: "us" },
    });
    await expect(resolveAccessToken(env, `${t.access_token.slice(0, -43)}${"x".repeat(43)}`, RESOURCE)).rejects.toMatchObject({
      code: "invalid_api_key",
    });
    await expect(resolveAccessToken(env, "mcp_at_garbage", RESOURCE)).rejects.toMatchObject({ code: "invalid_api_key" });
    // A tenant that never issued a token is refused before any account object is asked.
    await expect(resolveAccessToken(env, `mcp_at_us_${"0".repeat(26)}_${"x".repeat(43)}`, RESOURCE)).rejects.toMatchObject({
      code: "invalid_api_key",
    });
    const disabled = await admin(`/admin/v1/tenants/${tenant.tenant_id}/disable`, {});
    expect(disabled.status, disabled.text).toBe(200);
    await expect(resolveAccessToken(env, t.access_token, RESOURCE)).rejects.toMatchObject({ code: "tenant_disabled" });
  });
});
