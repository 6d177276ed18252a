/**
 * The device authorization grant (RFC 8628), both halves: the device's request
 * (`POST /oauth/device_authorization`, §3.1–3.2) and the person's decision on the console's
 * device page (§3.3), which binds the authorization to their current tenant and role.
 */

import type { AuditAccountSlice } from "../audit/account-slice";
import type { AuditBy } from "../audit/audited";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { userCodeNotFound } from "../errors/not-found";
import type { Permission } from "../keys/api-keys";
import { newId } from "../lib/ids";
import type { Member } from "../people/member";
import { accountSlice } from "../tenancy/account-slice";
import { DEVICE_GRANT, resolveClient } from "./clients";
import type { DeviceView } from "./oauth-records";
import { deviceObject } from "./oauth-stub";
import { narrowScopes, parseScope, UNKNOWN_SCOPE } from "./scopes";
import { markOAuthTenant } from "./tenant-pointer";
import {
  DEVICE_CODE_TTL_MS,
  DEVICE_POLL_INTERVAL_S,
  displayUserCode,
  hashToken,
  newDeviceCode,
  newUserCode,
  normalizeUserCode,
} from "./tokens";
import { OAuthError } from "./wire";
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export async function startDeviceAuthorization(
  env: Env,
  form: Map<string, string>,
  clientId: string | null,
  where: { origin: string; resource: string },
  now = Date.now(),
): Promise<DeviceAuthorizationResponse> {
  if (clientId === null) throw new OAuthError("invalid_request", "client_id is required.");
  const lookup = await resolveClient(env, clientId, now);
  if (!lookup.ok) throw new OAuthError("invalid_client", lookup.reason);
  if (!lookup.client.grant_types.includes(DEVICE_GRANT)) {
    throw new OAuthError("unauthorized_client", `This client did not register the ${DEVICE_GRANT} grant.`);
  }
  const scopes = parseScope(form.get("scope"));
  if (!scopes) throw new OAuthError("invalid_scope", UNKNOWN_SCOPE);
  const resource = form.get("resource") ?? where.resource;
  if (resource !== where.resource) throw new OAuthError("invalid_target", `resource must be ${where.resource}.`);
  const expiresAt = now + DEVICE_CODE_TTL_MS;
  // A user code names its object; a code still in use elsewhere is drawn again.
  for (let attempt = 0; attempt < 5; attempt++) {
    const userCode = newUserCode();
    const deviceCode = newDeviceCode(userCode);
    const started = await deviceObject(env, userCode).startDevice({
      user_code: userCode,
      device_code_hash: await hashToken(deviceCode),
      client_id: lookup.client.client_id,
      client_name: lookup.client.client_name,
      scopes,
      resource,
      expires_at: expiresAt,
      interval_s: DEVICE_POLL_INTERVAL_S,
    });
    if (!started) continue;
    const shown = displayUserCode(userCode);
    return {
      device_code: deviceCode,
      user_code: shown,
      verification_uri: `${where.origin}/console/device`,
      verification_uri_complete: `${where.origin}/console/device?user_code=${shown}`,
      expires_in: DEVICE_CODE_TTL_MS / 1000,
      interval: DEVICE_POLL_INTERVAL_S,
    };
  }
  throw new OAuthError("temporarily_unavailable", "No user code could be assigned; try again.", 400);
}

/** The pending authorization a typed code names, for the console; null when unknown or ended. */
export async function findDevice(env: Env, typed: string): Promise<DeviceView | null> {
  const code = normalizeUserCode(typed);
  return code ? deviceObject(env, code).device() : null;
}

/**
 * The member approves: the device will get a grant in their current tenant, with the asked
 * scopes narrowed to what their role allows. Recorded as `oauth.grant.approve`.
 */
export async function approveDevice(
  env: Env,
  member: Member,
  typed: string,
  by: AuditBy,
): Promise<{ view: DeviceView; scopes: Permission[] }> {
  const code = normalizeUserCode(typed);
  if (!code) throw userCodeNotFound();
  const stub = deviceObject(env, code);
  const current = await stub.device();
  if (!current) throw userCodeNotFound();
  const scopes = narrowScopes(current.scopes, member.role);
  const grantId = newId("grt");
  await markOAuthTenant(env, member.tenant_id);
  const decided = await stub.decideDevice({
    approve: true,
    tenant_id: member.tenant_id,
    tenant_name: member.tenant_name,
    user_id: member.user_id,
    email: member.email,
    scopes,
    grant_id: grantId,
  });
  if (!decided.ok) throw decisionError(decided.code);
  await accountSlice<AuditAccountSlice>(env, member.tenant_id).recordAudit({
    ...by,
    action: "oauth.grant.approve",
    target: grantId,
    details: { client_id: current.client_id, client_name: current.client_name, scopes, flow: "device" },
  });
  return { view: decided.view, scopes };
}

/** The member denies: the device's next poll gets `access_denied`. Recorded as `oauth.device.deny`. */
export async function denyDevice(env: Env, member: Member, typed: string, by: AuditBy): Promise<DeviceView> {
  const code = normalizeUserCode(typed);
  if (!code) throw userCodeNotFound();
  const decided = await deviceObject(env, code).decideDevice({
    approve: false,
    tenant_id: member.tenant_id,
    tenant_name: member.tenant_name,
    user_id: member.user_id,
    email: member.email,
  });
  if (!decided.ok) throw decisionError(decided.code);
  await accountSlice<AuditAccountSlice>(env, member.tenant_id).recordAudit({
    ...by,
    action: "oauth.device.deny",
    target: decided.view.client_id,
    details: { client_name: decided.view.client_name, user_code: displayUserCode(code) },
  });
  return decided.view;
}

function decisionError(code: "unknown" | "decided"): ApiError {
  return code === "unknown" ? userCodeNotFound() : new ApiError("conflict", "This request was already approved or denied.");
}
