/** The authorization code flow with PKCE, end to end through the console's consent page. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { resolveAccessToken } from "../../src/oauth/access";
import { BASE } from "../helpers/api";
import { Browser, freshEmail, inviteAndSignIn, lastCode } from "../helpers/console";
import {
  approvedCode,
  auditOf,
  authorizeQuery,
  consent,
  newClient,
  ownerSignedIn,
  pkce,
  REDIRECT,
  RESOURCE,
  register,
  token,
  tokensFor,
} from "./flow";

function exchange(fields: { code: string; verifier: string; client: string }, over: Record<string, string> = {}) {
  return token({
    grant_type: "authorization_code",
    code: fields.code,
    code_verifier: fields.verifier,
    redirect_uri: REDIRECT,
    client_id: fields.client,
    resource: RESOURCE,
    ...over,
  });
}

describe("authorization code + PKCE", () => {
  it("a signed-in member approves; the code goes back with state and iss; the exchange gives tokens for /mcp", async () => {
    const { browser, tenant, email } = await ownerSignedIn();
    const client = await newClient({ name: "Inspector" });
    const { verifier, challenge } = await pkce();
    const params = {
      response_type: "code",
      client_id: client,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "xyz",
      scope: "tasks:read catalog:read",
      resource: RESOURCE,
    };
    const start = await browser.get(`/oauth/authorize?${authorizeQuery(params)}`);
    const page = await browser.get(start.location as string);
    expect(page.text).toContain("Inspector");
    expect(page.text).toContain(tenant.name);
    expect(page.text).toContain("app.example.com");
    expect(page.text).toContain("<code>tasks:read</code>");
    expect(page.text).not.toContain("<code>tasks:write</code>");
    // The form's post ends on the client's redirect URI: the page's CSP allows that origin.
    expect(page.headers.get("Content-Security-Policy")).toContain("form-action 'self' https://app.example.com;");

    const back = await consent(browser, params);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe("xyz");
    expect(back.searchParams.get("iss")).toBe(BASE);
    const code = back.searchParams.get("code") as string;
    expect(code).toMatch(new RegExp(`^mcp_ac_${tenant.tenant_id.slice(4)}_[A-Za-z0-9_-]{43}$`));

    const res = await exchange({ code, verifier, client });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.json).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "catalog:read tasks:read" });
    expect(res.json.access_token).toMatch(new RegExp(`^mcp_at_us_${tenant.tenant_id.slice(4)}_[A-Za-z0-9_-]{43}$`));
    expect(res.json.refresh_token).toMatch(new RegExp(`^mcp_rt_us_${tenant.tenant_id.slice(4)}_[A-Za-z0-9_-]{43}$`));

    const caller = await resolveAccessToken(env, res.json.access_token, RESOURCE);
    expect(caller).toMatchObject({
      tenant_id: tenant.tenant_id,
      email,
      client_id: client,
      client_name: "Inspector",
      scopes: ["catalog:read", "tasks:read"],
      region: "us",
    });
    expect(caller.grant_id).toMatch(/^grt_/);

    const entries = await auditOf(tenant.tenant_id);
    expect(entries.find((e) => e.action === "oauth.grant.approve")).toMatchObject({
      target: caller.grant_id,
      actor: { type: "user", email },
      details: { client_id: client, scopes: ["catalog:read", "tasks:read"], flow: "authorization_code" },
    });
  });

  it("a loopback redirect URI matches on any port (RFC 8252)", async () => {
    const { browser } = await ownerSignedIn();
    const client = await newClient();
    const { challenge } = await pkce();
    const back = await consent(browser, {
      response_type: "code",
      client_id: client,
      redirect_uri: "http://127.0.0.1:49152/callback",
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    expect(back.host).toBe("127.0.0.1:49152");
    expect(back.searchParams.get("code")).toBeTruthy();
    expect(back.searchParams.has("state")).toBe(false);
  });

  it("deny sends access_denied back, with state and iss", async () => {
    const { browser } = await ownerSignedIn();
    const client = await newClient();
    const { challenge } = await pkce();
    const back = await consent(
      browser,
      {
        response_type: "code",
        client_id: client,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "s1",
      },
      "deny",
    );
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("s1");
    expect(back.searchParams.get("iss")).toBe(BASE);
    expect(back.searchParams.has("code")).toBe(false);
  });

  it("a wrong verifier is invalid_grant, and the code is spent", async () => {
    const { browser } = await ownerSignedIn();
    const client = await newClient();
    const { code, verifier } = await approvedCode(browser, client);
    const other = await pkce();
    const wrong = await exchange({ code, verifier: other.verifier, client });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({ error: "invalid_grant", error_description: "code_verifier does not match the code_challenge." });
    const retry = await exchange({ code, verifier, client });
    expect(retry.status).toBe(400);
    expect(retry.json.error).toBe("invalid_grant");
  });

  it("a reused code is invalid_grant and revokes the tokens the first exchange gave", async () => {
    const { browser } = await ownerSignedIn();
    const client = await newClient();
    const { code, verifier } = await approvedCode(browser, client);
    const first = await exchange({ code, verifier, client });
    expect(first.status).toBe(200);
    await expect(resolveAccessToken(env, first.json.access_token, RESOURCE)).resolves.toBeDefined();
    const second = await exchange({ code, verifier, client });
    expect(second.status).toBe(400);
    expect(second.json.error).toBe("invalid_grant");
    await expect(resolveAccessToken(env, first.json.access_token, RESOURCE)).rejects.toMatchObject({ code: "invalid_api_key" });
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: first.json.refresh_token, client_id: client });
    expect(refreshed.json.error).toBe("invalid_grant");
  });

  it("a wrong redirect_uri, client or resource at the exchange is refused", async () => {
    const { browser } = await ownerSignedIn();
    const client = await newClient();
    const otherClient = await newClient();
    const a = await approvedCode(browser, client);
    const badRedirect = await exchange({ ...a, client }, { redirect_uri: "https://app.example.com/other" });
    expect(badRedirect.json).toEqual({
      error: "invalid_grant",
      error_description: "redirect_uri does not match the authorization request.",
    });

    const b = await approvedCode(browser, client);
    const badClient = await exchange({ ...b, client: otherClient });
    expect(badClient.json.error).toBe("invalid_grant");

    const c = await approvedCode(browser, client);
    const badResource = await exchange({ ...c, client }, { resource: `${BASE}/other` });
    expect(badResource.status).toBe(400);
    expect(badResource.json.error).toBe("invalid_target");
  });

  it("malformed token requests get RFC 6749 errors", async () => {
    const client = await newClient();
    const cases: [Record<string, string>, number, string][] = [
      [{ client_id: client }, 400, "invalid_request"],
      [{ grant_type: "password", client_id: client }, 400, "unsupported_grant_type"],
      [
        { grant_type: "authorization_code", code: "x", code_verifier: "y".repeat(43), redirect_uri: REDIRECT },
        400,
        "invalid_request",
      ],
      [
        { grant_type: "authorization_code", code: "x", code_verifier: "short", redirect_uri: REDIRECT, client_id: client },
        400,
        "invalid_request",
      ],
      [
        { grant_type: "authorization_code", code: "x", code_verifier: "y".repeat(43), redirect_uri: REDIRECT, client_id: client },
        400,
        "invalid_grant",
      ],
      [
        {
          grant_type: "authorization_code",
          code: "x",
          code_verifier: "y".repeat(43),
          redirect_uri: REDIRECT,
          client_id: "cli_00000000000000000000000000",
        },
        401,
        "invalid_client",
      ],
      [
        {
          grant_type: "authorization_code",
          code: "x",
          code_verifier: "y".repeat(43),
          redirect_uri: REDIRECT,
          client_id: client,
          client_secret: "s",
        },
        401,
        "invalid_client",
      ],
    ];
    for (const [fields, status, error] of cases) {
      const res = await token(fields);
      expect(res.status, JSON.stringify(fields)).toBe(status);
      expect(res.json.error, JSON.stringify(fields)).toBe(error);
      expect(typeof res.json.error_description).toBe("string");
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      if (status === 401) expect(res.headers.get("WWW-Authenticate")).toContain("Basic");
    }
    const json = await token({});
    expect(json.status).toBe(400);
  });

  it("before the client and redirect URI are verified, problems are shown as a page and nobody is redirected", async () => {
    const client = await newClient();
    const { challenge } = await pkce();
    const browser = new Browser();
    const cases: Record<string, string>[] = [
      { response_type: "code", redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" },
      {
        response_type: "code",
        client_id: "cli_00000000000000000000000000",
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
      },
      {
        response_type: "code",
        client_id: client,
        redirect_uri: "https://attacker.example.com/cb",
        code_challenge: challenge,
        code_challenge_method: "S256",
      },
      { response_type: "code", client_id: client, code_challenge: challenge, code_challenge_method: "S256" },
    ];
    for (const params of cases) {
      const res = await browser.get(`/oauth/authorize?${authorizeQuery(params)}`);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.location).toBeNull();
      expect(res.headers.get("Content-Type")).toContain("text/html");
    }
  });

  it("after they are, problems go back to the client as error=… with state and iss", async () => {
    const client = await newClient();
    const { challenge } = await pkce();
    const browser = new Browser();
    const base = {
      response_type: "code",
      client_id: client,
      redirect_uri: REDIRECT,
      state: "q",
      code_challenge: challenge,
      code_challenge_method: "S256",
    };
    const cases: [Record<string, string>, string][] = [
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ code_challenge: "" }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ scope: "tasks:read admin" }, "invalid_scope"],
      [{ resource: "https://elsewhere.example.com/mcp" }, "invalid_target"],
    ];
    for (const [over, error] of cases) {
      const res = await browser.get(`/oauth/authorize?${authorizeQuery({ ...base, ...over })}`);
      expect(res.status).toBe(302);
      const back = new URL(res.location as string);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get("error"), JSON.stringify(over)).toBe(error);
      expect(back.searchParams.get("state")).toBe("q");
      expect(back.searchParams.get("iss")).toBe(BASE);
    }
    const deviceOnly = await register({
      grant_types: ["urn:ietf:params:oauth:grant-type:device_code"],
      redirect_uris: [REDIRECT],
    });
    const res = await browser.get(`/oauth/authorize?${authorizeQuery({ ...base, client_id: deviceOnly.json.client_id })}`);
    expect(new URL(res.location as string).searchParams.get("error")).toBe("unauthorized_client");
  });

  it("a signed-out person signs in first and comes back to the consent page", async () => {
    const { email } = await ownerSignedIn();
    const client = await newClient();
    const { challenge } = await pkce();
    const browser = new Browser();
    const start = await browser.get(
      `/oauth/authorize?${authorizeQuery({ response_type: "code", client_id: client, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" })}`,
    );
    const consentPath = start.location as string;
    const gate = await browser.get(consentPath);
    expect(gate.status).toBe(303);
    expect(gate.location).toBe("/console/sign-in");
    await browser.get("/console/sign-in");
    await browser.post("/console/sign-in", { email });
    const done = await browser.post("/console/sign-in/code", { email, code: await lastCode(email) });
    expect(done.status).toBe(303);
    expect(done.location).toBe(consentPath);
    const page = await browser.get(consentPath);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Approve");
  });

  it("a viewer's approval grants only what a viewer may do", async () => {
    const { browser: owner } = await ownerSignedIn();
    const viewer = await inviteAndSignIn(owner, freshEmail("viewer"), "viewer");
    const tokens = await tokensFor(viewer);
    expect(tokens.scope).toBe("catalog:read tasks:read");
  });
});
