/**
 * Token revocation (RFC 7009): a refresh token revokes its whole grant, an access token only
 * itself (§2.1). Unknown, malformed or already revoked tokens are not an error (§2.2); a token
 * issued to another client than the one named is refused (`unauthorized_client`).
 */

import type { Env } from "../env";
import { accountSlice } from "../tenancy/account-slice";
import type { OAuthAccountSlice } from "./account-slice";
import { knownTenant } from "./tenant-pointer";
import { hashToken, parseAccessToken, parseRefreshToken } from "./tokens";
import { OAuthError } from "./wire";

export async function revokeToken(env: Env, form: Map<string, string>, clientId: string | null): Promise<void> {
  const token = form.get("token");
  if (token === undefined) throw new OAuthError("invalid_request", "token is required.");
  const parsed = parseRefreshToken(token) ?? parseAccessToken(token);
  if (!parsed || parsed.region !== env.REGION || !(await knownTenant(env, parsed.tenant_id))) return;
  const outcome = await accountSlice<OAuthAccountSlice>(env, parsed.tenant_id).oauthRevokeToken(await hashToken(token), clientId);
  if (outcome === "wrong_client") throw new OAuthError("unauthorized_client", "This token was issued to another client.");
}
