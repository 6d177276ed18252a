/**
 * The token endpoint's grants: authorization code (with PKCE), refresh token (rotated) and device
 * code (RFC 8628 §3.4–3.5). New tokens are made here, where region and tenant are known, and
 * only their hashes go to the tenant's AccountObject, which decides in one step.
 */

import type { Env } from "../env";
import { toBase64Url } from "../lib/base64";
import { accountSlice } from "../tenancy/account-slice";
import type { OAuthAccountSlice } from "./account-slice";
import { DEVICE_GRANT, resolveClient } from "./clients";
import type { IssueHashes, IssueResult } from "./grant-store";
import { deviceObject } from "./oauth-stub";
import { formatScope, parseScope } from "./scopes";
import { knownTenant } from "./tenant-pointer";
import {
  ACCESS_TOKEN_TTL_MS,
  hashToken,
  newAccessToken,
  newRefreshToken,
  parseAuthorizationCode,
  parseDeviceCode,
  parseRefreshToken,
} from "./tokens";
import { OAuthError } from "./wire";

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const REGISTERED_ID = /^cli_[0-9a-z]{26}$/;

async function s256(verifier: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

function required(form: Map<string, string>, name: string): string {
  const value = form.get(name);
  if (value === undefined) throw new OAuthError("invalid_request", `${name} is required.`);
  return value;
}

/** A new access and refresh token for a tenant, and their hashes. */
async function newTokens(env: Env, tenantId: string): Promise<{ access: string; refresh: string; hashes: IssueHashes }> {
  const access = newAccessToken(env.REGION, tenantId);
  const refresh = newRefreshToken(env.REGION, tenantId);
  return { access, refresh, hashes: { access_hash: await hashToken(access), refresh_hash: await hashToken(refresh) } };
}

function answer(result: IssueResult, tokens: { access: string; refresh: string }): TokenResponse {
  if (!result.ok) throw new OAuthError(result.error, result.description);
  return {
    access_token: tokens.access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    refresh_token: tokens.refresh,
    scope: formatScope(result.scopes),
  };
}

/**
 * The client of a token request: a registered id must exist (else 401 invalid_client); a
 * metadata-document URL is not fetched again, as every code and token is bound to the exact
 * client_id it was issued to.
 */
async function checkClient(env: Env, clientId: string | null): Promise<string> {
  if (clientId === null) throw new OAuthError("invalid_request", "client_id is required.");
  if (REGISTERED_ID.test(clientId)) {
    if (!(await resolveClient(env, clientId)).ok)
      throw new OAuthError("invalid_client", "This client_id is not registered here.");
    return clientId;
  }
  if (/^https?:\/\//.test(clientId)) return clientId;
  throw new OAuthError("invalid_client", "Unknown client_id.");
}

function checkResource(form: Map<string, string>, expected: string): string | null {
  const resource = form.get("resource") ?? null;
  if (resource !== null && resource !== expected) throw new OAuthError("invalid_target", `resource must be ${expected}.`);
  return resource;
}

export async function tokenRequest(
  env: Env,
  form: Map<string, string>,
  rawClientId: string | null,
  expectedResource: string,
): Promise<TokenResponse> {
  const grantType = required(form, "grant_type");
  if (grantType !== "authorization_code" && grantType !== "refresh_token" && grantType !== DEVICE_GRANT) {
    throw new OAuthError("unsupported_grant_type", `grant_type ${grantType} is not supported.`);
  }
  const clientId = await checkClient(env, rawClientId);

  if (grantType === "authorization_code") {
    const code = required(form, "code");
    const verifier = required(form, "code_verifier");
    const redirectUri = required(form, "redirect_uri");
    if (!VERIFIER.test(verifier))
      throw new OAuthError("invalid_request", "code_verifier must be 43 to 128 unreserved characters.");
    const resource = form.get("resource") ?? null;
    const parsed = parseAuthorizationCode(code);
    if (!parsed || !(await knownTenant(env, parsed.tenant_id)))
      throw new OAuthError("invalid_grant", "The authorization code is not valid.");
    const tokens = await newTokens(env, parsed.tenant_id);
    const result = await accountSlice<OAuthAccountSlice>(env, parsed.tenant_id).oauthRedeemCode(
      await hashToken(code),
      { client_id: clientId, redirect_uri: redirectUri, challenge: await s256(verifier), resource },
      tokens.hashes,
    );
    return answer(result, tokens);
  }

  if (grantType === "refresh_token") {
    const refresh = required(form, "refresh_token");
    const resource = checkResource(form, expectedResource);
    const scopeParam = form.get("scope");
    const scopes = scopeParam === undefined ? null : parseScope(scopeParam);
    if (scopeParam !== undefined && !scopes) throw new OAuthError("invalid_scope", "scope names an unknown scope.");
    const parsed = parseRefreshToken(refresh);
    if (!parsed) throw new OAuthError("invalid_grant", "The refresh token is not valid.");
    if (parsed.region !== env.REGION) {
      throw new OAuthError(
        "invalid_grant",
        `This refresh token belongs to region '${parsed.region}'; use that region's token endpoint.`,
      );
    }
    if (!(await knownTenant(env, parsed.tenant_id))) throw new OAuthError("invalid_grant", "The refresh token is not valid.");
    const tokens = await newTokens(env, parsed.tenant_id);
    const result = await accountSlice<OAuthAccountSlice>(env, parsed.tenant_id).oauthRefresh(
      await hashToken(refresh),
      { client_id: clientId, scopes, resource },
      tokens.hashes,
    );
    return answer(result, tokens);
  }

  // RFC 8628 §3.4: the device code grant.
  const deviceCode = required(form, "device_code");
  checkResource(form, expectedResource);
  const parsed = parseDeviceCode(deviceCode);
  if (!parsed) throw new OAuthError("invalid_grant", "The device code is not valid.");
  const poll = await deviceObject(env, parsed.user_code).pollDevice(await hashToken(deviceCode), clientId);
  switch (poll.state) {
    case "invalid":
      throw new OAuthError("invalid_grant", "The device code is not valid.");
    case "issued":
      throw new OAuthError("invalid_grant", "The device code was already used.");
    case "expired":
      throw new OAuthError("expired_token", "The device code has expired; start again.");
    case "denied":
      throw new OAuthError("access_denied", "The request was denied.");
    case "slow_down":
      throw new OAuthError("slow_down", "Polling too fast: wait 5 more seconds between requests.");
    case "pending":
      throw new OAuthError("authorization_pending", "Waiting for the user to approve the request.");
  }
  const tokens = await newTokens(env, poll.tenant_id);
  const result = await accountSlice<OAuthAccountSlice>(env, poll.tenant_id).oauthIssueDeviceGrant(
    {
      grant_id: poll.grant_id,
      client_id: poll.client_id,
      client_name: poll.client_name,
      user_id: poll.user_id,
      scopes: poll.scopes,
      resource: poll.resource,
    },
    tokens.hashes,
  );
  return answer(result, tokens);
}
