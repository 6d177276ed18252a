/**
 * Console requests in the Worker tests: a tenant with an owner (as the operator makes one), other
 * members, a signed-in session for any of them, and requests that carry its cookie — through the
 * people services, as the sign-in pages would leave them.
 */
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { createTenantWithOwner } from "../../src/accounts/tenant-with-owner";
import { cookieName } from "../../src/console/cookies";
import { inviteMember } from "../../src/people/members";
import type { Role } from "../../src/people/roles";
import { startSession } from "../../src/people/sessions";
import { userIdByEmail } from "../../src/people/users";
import { admin, BASE, readResponse, type TestTenant } from "../helpers/api";

let counter = 0;
const operator = { principal: { kind: "operator" as const } };

export interface ConsoleTenant extends TestTenant {
  /** The owner's session cookie, as a `Cookie` header value. */
  owner: string;
}

async function sessionCookie(email: string, tenantId: string): Promise<string> {
  const userId = await userIdByEmail(env, email);
  expect(userId).toBeTruthy();
  const s = await startSession(env, userId as string, { tenant_id: tenantId, ip: null, user_agent: null });
  return `${cookieName(env, "session")}=${s.cookie}`;
}

/** A tenant with credits, an API key, and its owner signed in. */
export async function consoleTenant(credits = "1000"): Promise<ConsoleTenant> {
  const email = `owner-${Date.now()}-${++counter}@example.com`;
  const tenant = await createTenantWithOwner(env, { name: "Console tenant", credits, owner_email: email }, operator);
  const k = await admin(`/admin/v1/tenants/${tenant.tenant_id}/api-keys`, {});
  expect(k.status).toBe(201);
  return {
    tenant_id: tenant.tenant_id,
    api_key: k.json.api_key,
    key_id: k.json.key_id,
    owner: await sessionCookie(email, tenant.tenant_id),
  };
}

/** Another member of the tenant, with this role, signed in: their session cookie. */
export async function memberCookie(tenantId: string, role: Role): Promise<string> {
  const email = `${role}-${Date.now()}-${++counter}@example.com`;
  await inviteMember(env, tenantId, { email, role }, operator);
  return sessionCookie(email, tenantId);
}

/**
 * A console request with a session cookie (POSTs carry this origin, as a browser's would). Redirects
 * are answered, not followed, so that a test sees the 303 a browser would.
 */
export async function consoleCall(
  path: string,
  cookie: string | null,
  options: { headers?: Record<string, string>; form?: Record<string, string> } = {},
) {
  const headers = new Headers(options.headers);
  if (cookie) headers.set("Cookie", cookie);
  let body: string | undefined;
  if (options.form) {
    headers.set("Content-Type", "application/x-www-form-urlencoded");
    headers.set("Origin", BASE);
    body = new URLSearchParams(options.form).toString();
  }
  const res = await exports.default.fetch(
    new Request(`${BASE}${path}`, { method: body === undefined ? "GET" : "POST", headers, body, redirect: "manual" }),
  );
  return readResponse(res);
}

/** The `_csrf` value of a page's forms. */
export function csrfOf(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  expect(token, "a form with a CSRF token").toBeTruthy();
  return token as string;
}
