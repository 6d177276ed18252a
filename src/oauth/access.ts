/**
 * Access tokens as a protected resource (/mcp) sees them: what a `mcp_at_…` bearer token stands
 * for right now. Every call asks the tenant's AccountObject, which holds the grant and the member
 * list together, so a revoked grant or a member who left stops working at once, everywhere.
 */

import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { Permission } from "../keys/api-keys";
import { accountSlice } from "../tenancy/account-slice";
import type { OAuthAccountSlice } from "./account-slice";
import { narrowScopes } from "./scopes";
import { knownTenant } from "./tenant-pointer";
import { hashToken, parseAccessToken } from "./tokens";

/** Who calls through an OAuth grant: one tenant, one member, one client. */
export interface OAuthGrantCaller {
  tenant_id: string;
  grant_id: string;
  user_id: string;
  email: string;
  client_id: string;
  client_name: string;
  /** The token's scopes narrowed to what the member's current role allows (may be empty). */
  scopes: Permission[];
  region: string;
  /** When the access token stops working, ms since the epoch. */
  expires_at: number;
  /** The tenant's own requests-per-minute limit; null: the deployment's default. */
  rate_limit_per_minute: number | null;
}

/** Whether a bearer token is meant as one of our access tokens (else the caller may try API keys). */
export function looksLikeAccessToken(token: string): boolean {
  return token.startsWith("mcp_at_");
}

function invalid(): ApiError {
  return new ApiError("invalid_api_key", "The access token is not valid (unknown, expired or revoked).");
}

/**
 * The caller an access token stands for, for the resource `expectedResource` (its audience,
 * RFC 8707). Throws `invalid_api_key` (401) for an unknown, expired or revoked token, a member who
 * left, or another audience; `api_key_region_mismatch` for another region's token;
 * `tenant_disabled` for a disabled tenant, as for API keys.
 */
export async function resolveAccessToken(env: Env, token: string, expectedResource: string): Promise<OAuthGrantCaller> {
  const parsed = parseAccessToken(token);
  if (!parsed) throw invalid();
  if (parsed.region !== env.REGION) {
    throw new ApiError(
      "api_key_region_mismatch",
      `This token belongs to region '${parsed.region}', but this endpoint serves region '${env.REGION}'. Call the '${parsed.region}' deployment.`,
      { details: { key_region: parsed.region, endpoint_region: env.REGION } },
    );
  }
  // A made-up tenant id must not wake (and create) an account object.
  if (!(await knownTenant(env, parsed.tenant_id))) throw invalid();
  const resolved = await accountSlice<OAuthAccountSlice>(env, parsed.tenant_id).oauthResolveAccess(await hashToken(token));
  if (!resolved.ok) {
    if (resolved.reason === "tenant_disabled") throw new ApiError("tenant_disabled", "The tenant of this token is disabled.");
    throw invalid();
  }
  if (resolved.role === null) throw invalid();
  if (resolved.grant.resource !== expectedResource) throw invalid();
  return {
    tenant_id: parsed.tenant_id,
    grant_id: resolved.grant.grant_id,
    user_id: resolved.grant.user_id,
    email: resolved.grant.email,
    client_id: resolved.grant.client_id,
    client_name: resolved.grant.client_name,
    scopes: narrowScopes(
      resolved.token_scopes.filter((s) => resolved.grant.scopes.includes(s)),
      resolved.role,
    ),
    region: parsed.region,
    expires_at: resolved.expires_at,
    rate_limit_per_minute: resolved.rate_limit_per_minute,
  };
}
