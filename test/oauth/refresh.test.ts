/** Refresh tokens: rotated on every use; a rotated one presented again revokes the grant (OAuth 2.1 §4.3.1). */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { resolveAccessToken } from "../../src/oauth/access";
import { admin, BASE } from "../helpers/api";
import { auditOf, newClient, ownerSignedIn, RESOURCE, token, tokensFor } from "./flow";

function refresh(refreshToken: string, client: string, extra: Record<string, string> = {}) {
  return token({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: client, ...extra });
}

describe("refresh_token grant", () => {
  it("each refresh gives a new access and refresh token; the old access token keeps working until its end", async () => {
    const { browser } = await ownerSignedIn();
    const first = await tokensFor(browser);
    const next = await refresh(first.refresh_token, first.client, { resource: RESOURCE });
    expect(next.status, next.text).toBe(200);
    expect(next.headers.get("Cache-Control")).toBe("no-store");
    expect(next.json.refresh_token).not.toBe(first.refresh_token);
    expect(next.json.access_token).not.toBe(first.access_token);
    expect(next.json).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: first.scope });
    const a = await resolveAccessToken(env, first.access_token, RESOURCE);
    const b = await resolveAccessToken(env, next.json.access_token, RESOURCE);
    expect(b.grant_id).toBe(a.grant_id);
    // The new refresh token works in turn.
    const third = await refresh(next.json.refresh_token, first.client);
    expect(third.status).toBe(200);
  });

  it("presenting a rotated refresh token revokes the whole grant", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const first = await tokensFor(browser);
    const next = await refresh(first.refresh_token, first.client);
    expect(next.status).toBe(200);
    const replay = await refresh(first.refresh_token, first.client);
    expect(replay.status).toBe(400);
    expect(replay.json.error).toBe("invalid_grant");
    // The thief's replay ends the legitimate holder's tokens too.
    await expect(resolveAccessToken(env, next.json.access_token, RESOURCE)).rejects.toMatchObject({ code: "invalid_api_key" });
    const after = await refresh(next.json.refresh_token, first.client);
    expect(after.json.error).toBe("invalid_grant");
    const entries = await auditOf(tenant.tenant_id);
    expect(entries.find((e) => e.action === "oauth.grant.revoke")).toMatchObject({ details: { reason: "refresh_token_reuse" } });
  });

  it("a disabled tenant's refresh token gets no tokens; enabled again, the same refresh token works", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const first = await tokensFor(browser);
    expect((await admin(`/admin/v1/tenants/${tenant.tenant_id}/disable`, {})).status).toBe(200);
    const refused = await refresh(first.refresh_token, first.client);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json).toMatchObject({ error: "invalid_grant", error_description: "The tenant is disabled." });
    expect((await admin(`/admin/v1/tenants/${tenant.tenant_id}/enable`, {})).status).toBe(200);
    const again = await refresh(first.refresh_token, first.client);
    expect(again.status, again.text).toBe(200);
    await expect(resolveAccessToken(env, again.json.access_token, RESOURCE)).resolves.toMatchObject({
      grant_id: expect.any(String),
    });
  });

  it("scope may narrow, never widen; the narrowed token carries only what it asked", async () => {
    const { browser } = await ownerSignedIn();
    const first = await tokensFor(browser, undefined, { scope: "catalog:read tasks:read" });
    const wider = await refresh(first.refresh_token, first.client, { scope: "tasks:write" });
    expect(wider.json.error).toBe("invalid_scope");
    const narrower = await refresh(first.refresh_token, first.client, { scope: "catalog:read" });
    expect(narrower.status, narrower.text).toBe(200);
    expect(narrower.json.scope).toBe("catalog:read");
    expect((await resolveAccessToken(env, narrower.json.access_token, RESOURCE)).scopes).toEqual(["catalog:read"]);
  });

  it("refuses another client, another resource, an unknown token and another region's token", async () => {
    const { browser } = await ownerSignedIn();
    const first = await tokensFor(browser);
    const other = await newClient();
    expect((await refresh(first.refresh_token, other)).json.error).toBe("invalid_grant");
    expect((await refresh(first.refresh_token, first.client, { resource: `${BASE}/elsewhere` })).json.error).toBe(
      "invalid_target",
    );
    const forged = `${first.refresh_token.slice(0, -43)}${"A".repeat(43)}`;
    expect((await refresh(forged, first.client)).json.error).toBe("invalid_grant");
    const eu = first.refresh_token.replace("mcp_rt_us_", "mcp_rt_eu_");
    const res = await refresh(eu, first.client);
    expect(res.json.error).toBe("invalid_grant");
    expect(res.json.error_description).toContain("region 'eu'");
    // None of these refusals spent the real token.
    expect((await refresh(first.refresh_token, first.client)).status).toBe(200);
  });
});
