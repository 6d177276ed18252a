/** Token revocation (RFC 7009). */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { resolveAccessToken } from "../../src/oauth/access";
import { newClient, ownerSignedIn, postForm, RESOURCE, token, tokensFor } from "./flow";

describe("POST /oauth/revoke", () => {
  it("a refresh token revokes its grant: every token of it stops", async () => {
    const { browser } = await ownerSignedIn();
    const t = await tokensFor(browser);
    const res = await postForm("/oauth/revoke", {
      token: t.refresh_token,
      token_type_hint: "refresh_token",
      client_id: t.client,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    await expect(resolveAccessToken(env, t.access_token, RESOURCE)).rejects.toMatchObject({ code: "invalid_api_key" });
    expect((await token({ grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: t.client })).json.error).toBe(
      "invalid_grant",
    );
  });

  it("an access token revokes only itself", async () => {
    const { browser } = await ownerSignedIn();
    const t = await tokensFor(browser);
    expect((await postForm("/oauth/revoke", { token: t.access_token })).status).toBe(200);
    await expect(resolveAccessToken(env, t.access_token, RESOURCE)).rejects.toMatchObject({ code: "invalid_api_key" });
    expect((await token({ grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: t.client })).status).toBe(200);
  });

  it("unknown tokens are not an error; a missing token is; another client's token is refused", async () => {
    expect((await postForm("/oauth/revoke", { token: "whatever" })).status).toBe(200);
    const missing = await postForm("/oauth/revoke", {});
    expect(missing.status).toBe(400);
    expect(missing.json.error).toBe("invalid_request");
    const { browser } = await ownerSignedIn();
    const t = await tokensFor(browser);
    const other = await newClient();
    const refused = await postForm("/oauth/revoke", { token: t.refresh_token, client_id: other });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe("unauthorized_client");
    await expect(resolveAccessToken(env, t.access_token, RESOURCE)).resolves.toBeDefined();
  });
});
