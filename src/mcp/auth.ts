/**
 * Who calls /mcp. Two kinds of bearer token are accepted: an API key, exactly as on /v1, and an
 * OAuth access token issued by this service (src/oauth), whose grant stands in for a key: its
 * scopes are the key's permissions and its grant id the key id (rate window, audit).
 *
 * Refusals carry the challenges MCP clients act on (RFC 6750, RFC 9728): 401 names the protected
 * resource metadata so a client can find the authorization server; 403 `insufficient_scope`
 * names every scope /mcp offers so a client can step up.
 */

import { ApiError } from "../errors/api-error";
import type { Env } from "../http/context";
import { authenticate, type Caller, checkRate, type Permission, WORK_PERMISSIONS } from "../services/accounts";
import {
  looksLikeAccessToken,
  mcpResourceUrl,
  type OAuthGrantCaller,
  resolveAccessToken,
  resourceMetadataUrl,
} from "../services/oauth";

export interface McpCaller {
  caller: Caller;
  via: "api_key" | "oauth";
  /** For an OAuth token: the grant behind it. */
  grant?: OAuthGrantCaller;
}

/** The scopes a client is asked for in challenges: all the tools use (chat has no tool). */
export const MCP_SCOPES: readonly Permission[] = ["catalog:read", "tasks:read", "tasks:write", "logs:read"];

/** Holding any of these opens /mcp: a tool's own scope is checked when it is called. */
const ENDPOINT_SCOPES: ReadonlySet<string> = new Set<string>([...WORK_PERMISSIONS, ...MCP_SCOPES]);

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

/** The 401 challenge (RFC 9728 §5.1), with `error="invalid_token"` when a token was sent. */
function authChallenge(env: Env, request: Request, tokenSent: boolean): string {
  const metadata = `resource_metadata="${resourceMetadataUrl(env, request)}", scope="${MCP_SCOPES.join(" ")}"`;
  return `Bearer ${tokenSent ? 'error="invalid_token", ' : ""}${metadata}`;
}

/** The step-up challenge: every scope /mcp offers, so a client asks for them all at once. */
function scopeChallenge(env: Env, request: Request): string {
  return `Bearer error="insufficient_scope", scope="${MCP_SCOPES.join(" ")}", resource_metadata="${resourceMetadataUrl(env, request)}"`;
}

/**
 * The caller of an /mcp request. A 401 (no, malformed, unknown, expired or revoked credentials)
 * gets the `WWW-Authenticate` challenge; other refusals (region, disabled tenant, rate limit)
 * are the same as on /v1.
 */
export async function authenticateMcp(env: Env, request: Request, background: (p: Promise<unknown>) => void): Promise<McpCaller> {
  const authorization = request.headers.get("Authorization") ?? undefined;
  const token = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  try {
    if (token !== undefined && looksLikeAccessToken(token)) {
      const grant = await resolveAccessToken(env, token, mcpResourceUrl(env, request));
      const rate = await checkRate(env, grant.grant_id, grant.rate_limit_per_minute, background);
      const caller: Caller = {
        tenant_id: grant.tenant_id,
        key_id: grant.grant_id,
        permissions: grant.scopes,
        region: grant.region,
        mode: "live",
        rate,
      };
      return { caller, via: "oauth", grant };
    }
    return { caller: await authenticate(env, authorization, background), via: "api_key" };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw new ApiError(error.code, error.message, {
        param: error.param,
        details: error.details,
        headers: {
          ...error.headers,
          "WWW-Authenticate": authChallenge(env, request, token !== undefined),
        },
      });
    }
    throw error;
  }
}

/** Every /mcp request needs at least one scope of the service's; none: 403 with a step-up challenge. */
export function requireEndpointScope(env: Env, request: Request, caller: Caller): void {
  if (caller.permissions.some((p) => ENDPOINT_SCOPES.has(p))) return;
  throw new ApiError("insufficient_scope", `This token holds none of the scopes /mcp needs (${MCP_SCOPES.join(", ")}).`, {
    details: { missing_scopes: [...MCP_SCOPES] },
    headers: { "WWW-Authenticate": scopeChallenge(env, request) },
  });
}

/** A tool's scope check: the tool error `insufficient_scope` naming what is missing. */
export function requireToolScope(caller: Caller, tool: string, scopes: readonly Permission[]): void {
  const missing = scopes.filter((s) => !caller.permissions.includes(s));
  if (missing.length === 0) return;
  throw new ApiError(
    "insufficient_scope",
    `The tool '${tool}' needs the scope${missing.length > 1 ? "s" : ""} ${missing.map((s) => `'${s}'`).join(", ")}, which this token does not hold.`,
    { details: { missing_scopes: missing } },
  );
}
