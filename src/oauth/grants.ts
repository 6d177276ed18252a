/**
 * The console's side of OAuth grants: a member approving a client on the consent page (an
 * authorization code), and the "Connected apps" list with revocation. Owners see and revoke every
 * grant of the tenant; other members their own.
 */

import type { AuditBy } from "../audit/audited";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { newId } from "../lib/ids";
import type { Member } from "../people/member";
import { accountSlice } from "../tenancy/account-slice";
import type { OAuthAccountSlice } from "./account-slice";
import type { AuthorizationRequest } from "./authorize-request";
import type { OAuthGrantView } from "./grant-store";
import { markOAuthTenant } from "./tenant-pointer";
import { AUTHORIZATION_CODE_TTL_MS, hashToken, newAuthorizationCode } from "./tokens";

/** Owners manage the tenant's connections; everyone else, their own. */
export function seesAllGrants(member: Member): boolean {
  return member.role === "owner";
}

/** The member approved: an authorization code for the request, in their current tenant. */
export async function approveAuthorization(
  env: Env,
  member: Member,
  request: AuthorizationRequest,
  by: AuditBy,
): Promise<string> {
  await markOAuthTenant(env, member.tenant_id);
  const code = newAuthorizationCode(member.tenant_id);
  const grantId = newId("grt");
  const result = await accountSlice<OAuthAccountSlice>(env, member.tenant_id).oauthCreateCode(
    {
      code_hash: await hashToken(code),
      grant_id: grantId,
      client_id: request.client.client_id,
      client_name: request.client.client_name,
      redirect_uri: request.redirect_uri,
      code_challenge: request.code_challenge,
      resource: request.resource,
      scopes: request.scopes,
      user_id: member.user_id,
      expires_at: Date.now() + AUTHORIZATION_CODE_TTL_MS,
    },
    {
      ...by,
      action: "oauth.grant.approve",
      target: grantId,
      details: { client_id: request.client.client_id, client_name: request.client.client_name, flow: "authorization_code" },
    },
  );
  if (!result.ok) throw new ApiError("forbidden", "You are no longer a member of this tenant.");
  return code;
}

export async function listGrants(env: Env, member: Member): Promise<OAuthGrantView[]> {
  return accountSlice<OAuthAccountSlice>(env, member.tenant_id).oauthGrants(seesAllGrants(member) ? undefined : member.user_id);
}

export async function revokeGrant(env: Env, member: Member, grantId: string, by: AuditBy): Promise<OAuthGrantView> {
  const revoked = await accountSlice<OAuthAccountSlice>(env, member.tenant_id).oauthRevokeGrant(
    grantId,
    seesAllGrants(member) ? null : member.user_id,
    {
      ...by,
      action: "oauth.grant.revoke",
      target: grantId,
      details: { reason: "console" },
    },
  );
  if (!revoked) throw new ApiError("not_found", `Connected app ${grantId} does not exist or is already revoked.`);
  return revoked;
}
