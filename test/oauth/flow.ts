/**
 * Drives the OAuth server as a client and a person would: registration, PKCE, the consent page
 * through a signed-in console browser, the token endpoint's form posts, and the device page.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { AuditEntry } from "../../src/audit/audit-store";
import { toBase64Url } from "../../src/lib/base64";
import { admin, BASE, send } from "../helpers/api";
import { type Browser, freshEmail, signIn, tenantWithOwner } from "../helpers/console";

export const RESOURCE = `${BASE}/mcp`;
export const REDIRECT = "https://app.example.com/callback";
export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** A form post to an OAuth endpoint. */
export async function postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return send(
    new Request(`${BASE}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

export function token(fields: Record<string, string>) {
  return postForm("/oauth/token", fields);
}

export async function register(metadata: Record<string, unknown>) {
  return send(
    new Request(`${BASE}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(metadata),
    }),
  );
}

/** A registered client for the authorization code flow (and the device flow when asked). */
export async function newClient(opts: { device?: boolean; name?: string } = {}): Promise<string> {
  const res = await register({
    client_name: opts.name ?? "Test MCP client",
    redirect_uris: [REDIRECT, "http://127.0.0.1/callback"],
    grant_types: ["authorization_code", "refresh_token", ...(opts.device ? [DEVICE_GRANT] : [])],
  });
  expect(res.status, res.text).toBe(201);
  return res.json.client_id;
}

export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return { verifier, challenge: toBase64Url(digest) };
}

export interface SignedInOwner {
  email: string;
  tenant: { tenant_id: string; name: string };
  browser: Browser;
}

export async function ownerSignedIn(): Promise<SignedInOwner> {
  const email = freshEmail("oauth-owner");
  const tenant = await tenantWithOwner(email);
  return { email, tenant, browser: await signIn(email) };
}

export function authorizeQuery(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

/**
 * The whole front channel: /oauth/authorize → the consent page → the member's decision → the
 * redirect back. Returns the final Location (on the client's redirect URI).
 */
export async function consent(
  browser: Browser,
  params: Record<string, string>,
  decision: "approve" | "deny" = "approve",
): Promise<URL> {
  const start = await browser.get(`/oauth/authorize?${authorizeQuery(params)}`);
  expect(start.status, start.text).toBe(302);
  expect(start.location?.startsWith("/console/oauth/authorize?")).toBe(true);
  const page = await browser.get(start.location as string);
  expect(page.status, page.text).toBe(200);
  const fields: Record<string, string> = { decision };
  for (const m of page.text.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)"/g)) {
    if (m[1] !== "_csrf") fields[m[1] as string] = decodeHtml(m[2] as string);
  }
  const answer = await browser.post("/console/oauth/authorize", fields);
  expect(answer.status, answer.text).toBe(303);
  return new URL(answer.location as string);
}

function decodeHtml(s: string): string {
  return s
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

/** A code approved by the signed-in member, and what its exchange needs. */
export async function approvedCode(browser: Browser, clientId: string, extra: Record<string, string> = {}) {
  const { verifier, challenge } = await pkce();
  const back = await consent(browser, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st-123",
    resource: RESOURCE,
    ...extra,
  });
  const code = back.searchParams.get("code");
  expect(code, back.toString()).toBeTruthy();
  return { code: code as string, verifier, back };
}

/** Tokens through the authorization code flow, for a fresh client and the signed-in member. */
export async function tokensFor(browser: Browser, clientId?: string, extra: Record<string, string> = {}) {
  const client = clientId ?? (await newClient());
  const { code, verifier } = await approvedCode(browser, client, extra);
  const res = await token({
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    client_id: client,
    resource: RESOURCE,
  });
  expect(res.status, res.text).toBe(200);
  return { client, ...(res.json as { access_token: string; refresh_token: string; scope: string; expires_in: number }) };
}

export async function members(tenantId: string): Promise<{ user_id: string; email: string; role: string }[]> {
  const res = await admin(`/admin/v1/tenants/${tenantId}/members`);
  expect(res.status).toBe(200);
  return res.json.data;
}

export async function userIdOf(tenantId: string, email: string): Promise<string> {
  const m = (await members(tenantId)).find((x) => x.email === email);
  expect(m, `${email} among the members`).toBeDefined();
  return (m as { user_id: string }).user_id;
}

/** Moves every access token of the tenant past its end (the clock stays; the row changes). */
export async function expireAccessTokens(tenantId: string): Promise<void> {
  await runInDurableObject(env.ACCOUNTS.getByName(tenantId), async (_o, state) => {
    state.storage.sql.exec("UPDATE oauth_tokens SET expires_at = ? WHERE kind = 'access'", Date.now() - 1);
  });
}

/** The tenant's audit log, newest first. */
export async function auditOf(tenantId: string): Promise<AuditEntry[]> {
  const page = (await env.ACCOUNTS.getByName(tenantId).audit({ limit: 50 })) as unknown as { entries: AuditEntry[] };
  return page.entries;
}
