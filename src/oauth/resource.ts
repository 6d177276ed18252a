/**
 * The addresses the authorization server and the protected resource (/mcp) are known by. Both
 * come from PUBLIC_BASE_URL when it is set (each region's public address), and only without it
 * (local development) from the request's own origin, so that a forged Host cannot move an
 * audience or an issuer.
 */
import type { Env } from "../env";
import { publicBaseUrl } from "../lib/public-url";

/** The issuer and the base of every OAuth endpoint: PUBLIC_BASE_URL, else the request's origin. */
export function oauthOrigin(env: Pick<Env, "PUBLIC_BASE_URL">, request: { url: string }): string {
  return publicBaseUrl(env) || new URL(request.url).origin;
}

/** The canonical URI of the MCP endpoint (RFC 8707 resource, RFC 9728 `resource`): tokens' audience. */
export function mcpResourceUrl(env: Pick<Env, "PUBLIC_BASE_URL">, request: { url: string }): string {
  return `${oauthOrigin(env, request)}/mcp`;
}

/** Where a client finds the protected resource metadata of /mcp (RFC 9728 §3.1, path-suffixed form). */
export function resourceMetadataUrl(env: Pick<Env, "PUBLIC_BASE_URL">, request: { url: string }): string {
  return `${oauthOrigin(env, request)}/.well-known/oauth-protected-resource/mcp`;
}
