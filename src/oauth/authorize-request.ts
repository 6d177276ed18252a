/**
 * The authorization request (RFC 6749 §4.1.1 with OAuth 2.1's PKCE, RFC 8707 `resource`), checked
 * the same way by `GET /oauth/authorize` and by the console's consent page, which receives it
 * again from the browser and trusts nothing of it. The client and its redirect URI are verified
 * first: until they are, a problem is shown as a page and nobody is redirected anywhere
 * (§4.1.2.1); after, problems go back to the client as `error=` on its redirect URI, with `state`
 * and `iss` (RFC 9207).
 */

import type { Env } from "../env";
import type { Permission } from "../keys/api-keys";
import { resolveClient } from "./clients";
import type { OAuthClient } from "./oauth-records";
import { matchesRegistered } from "./redirect-uris";
import { parseScope, UNKNOWN_SCOPE } from "./scopes";

/** The parameters the consent form carries back, in this order. */
export const AUTHORIZE_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
] as const;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirect_uri: string;
  state: string | null;
  scopes: Permission[];
  code_challenge: string;
  resource: string;
}

export type AuthorizeCheck =
  | { kind: "ok"; request: AuthorizationRequest }
  /** The client or the redirect URI cannot be trusted: say so on a page, redirect nowhere. */
  | { kind: "page"; message: string }
  /** A problem the client must hear about, on its (verified) redirect URI. */
  | { kind: "redirect"; location: string };

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const STATE_MAX = 2000;

/** The redirect URI with the answer's parameters added to whatever query it has (RFC 6749 §3.1.2). */
export function redirectTo(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return url.toString();
}

export async function checkAuthorizationRequest(
  env: Env,
  query: URLSearchParams,
  expected: { issuer: string; resource: string },
): Promise<AuthorizeCheck> {
  const one = (name: string): string | null | "repeated" => {
    const all = query.getAll(name);
    if (all.length > 1) return "repeated";
    return all[0] === undefined || all[0] === "" ? null : all[0];
  };
  const clientId = one("client_id");
  if (clientId === null || clientId === "repeated") return { kind: "page", message: "The request names no client (client_id)." };
  const lookup = await resolveClient(env, clientId);
  if (!lookup.ok) return { kind: "page", message: `This client cannot be used: ${lookup.reason}` };
  const client = lookup.client;
  const redirectUri = one("redirect_uri");
  if (redirectUri === null || redirectUri === "repeated") {
    return { kind: "page", message: "The request has no redirect_uri; this server needs one with every authorization request." };
  }
  if (!matchesRegistered(redirectUri, client.redirect_uris)) {
    return { kind: "page", message: `The redirect_uri is not one that ${client.client_name} registered.` };
  }
  const state = one("state");
  const back = (error: string, description: string): AuthorizeCheck => ({
    kind: "redirect",
    location: redirectTo(redirectUri, {
      error,
      error_description: description,
      state: state === "repeated" ? null : state,
      iss: expected.issuer,
    }),
  });
  for (const name of AUTHORIZE_PARAMS) {
    if (query.getAll(name).length > 1) return back("invalid_request", `The parameter ${name} is repeated.`);
  }
  if (state !== null && state !== "repeated" && state.length > STATE_MAX) return back("invalid_request", "state is too long.");
  const responseType = one("response_type");
  if (responseType !== "code") return back("unsupported_response_type", 'response_type must be "code".');
  if (!client.grant_types.includes("authorization_code")) {
    return back("unauthorized_client", "This client did not register the authorization_code grant.");
  }
  const challenge = one("code_challenge");
  if (challenge === null)
    return back("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256.");
  if (one("code_challenge_method") !== "S256") return back("invalid_request", "code_challenge_method must be S256.");
  if (!CHALLENGE.test(challenge as string))
    return back("invalid_request", "code_challenge must be 43 base64url characters (S256).");
  const scopes = parseScope(one("scope") as string | null);
  if (!scopes) return back("invalid_scope", UNKNOWN_SCOPE);
  const resource = one("resource") ?? expected.resource;
  if (resource !== expected.resource) return back("invalid_target", `resource must be ${expected.resource}.`);
  return {
    kind: "ok",
    request: {
      client,
      redirect_uri: redirectUri,
      state: state as string | null,
      scopes,
      code_challenge: challenge as string,
      resource,
    },
  };
}
