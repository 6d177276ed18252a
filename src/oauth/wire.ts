/**
 * The OAuth endpoints speak OAuth's own wire format, not the API's error envelope: requests are
 * form-encoded (RFC 6749 §3.2, RFC 7009 §2.1, RFC 8628 §3.1), answers are JSON with
 * `Cache-Control: no-store`, and a refusal is `{error, error_description}` (RFC 6749 §5.2) with
 * HTTP 400, or 401 for `invalid_client`. Clients of these endpoints are OAuth libraries that
 * branch on `error`.
 */
import type { Context } from "hono";
import { readAtMost, TooLarge } from "../lib/streams";

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_target"
  | "authorization_pending"
  | "slow_down"
  | "access_denied"
  | "expired_token"
  | "unsupported_token_type"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "temporarily_unavailable";

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 429 = error === "invalid_client" ? 401 : 400,
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

/** Browser-based clients call these endpoints from their own origin; no cookie is ever read here. */
export const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type, MCP-Protocol-Version",
  "Access-Control-Max-Age": "86400",
};

export function oauthJson(c: Context, body: unknown, status: 200 | 201 = 200) {
  return c.json(body, status, { ...NO_STORE, ...CORS });
}

export function oauthErrorResponse(c: Context, e: OAuthError) {
  const headers: Record<string, string> = { ...NO_STORE, ...CORS };
  // RFC 6749 §5.2: a 401 invalid_client carries a challenge for the scheme the client may use.
  if (e.status === 401) headers["WWW-Authenticate"] = 'Basic realm="oauth"';
  if (e.retryAfter !== undefined) headers["Retry-After"] = String(Math.ceil(e.retryAfter));
  return c.json({ error: e.error, error_description: e.description }, e.status, headers);
}

const FORM_MAX_BYTES = 16 * 1024;

/**
 * The form of a POST: `application/x-www-form-urlencoded` only, each parameter at most once
 * (RFC 6749 §3.2); empty values count as absent (§3.1).
 */
export async function readForm(c: Context): Promise<Map<string, string>> {
  const type = (c.req.header("Content-Type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new OAuthError("invalid_request", "The request body must be application/x-www-form-urlencoded.");
  }
  // Counted as it arrives: an oversized body is refused without being read whole.
  let bytes: Uint8Array;
  try {
    bytes = await readAtMost(c.req.raw.body, FORM_MAX_BYTES);
  } catch (e) {
    if (e instanceof TooLarge) throw new OAuthError("invalid_request", "The request body is too large.");
    throw new OAuthError("invalid_request", "The request body could not be read to its end.");
  }
  const text = new TextDecoder().decode(bytes);
  const out = new Map<string, string>();
  const seen = new Set<string>();
  for (const [k, v] of new URLSearchParams(text)) {
    if (seen.has(k)) throw new OAuthError("invalid_request", `The parameter ${k} is repeated.`);
    seen.add(k);
    if (v !== "") out.set(k, v);
  }
  return out;
}

/**
 * The client of a token, device or revocation request. Public clients send `client_id` in the
 * form; HTTP Basic with an empty secret is accepted as the same. A secret is refused: no client
 * here has one.
 */
export function clientIdOf(c: Context, form: Map<string, string>): string | null {
  const auth = c.req.header("Authorization");
  let fromHeader: string | null = null;
  if (auth) {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(auth);
    if (!m) throw new OAuthError("invalid_client", "Only public clients are supported: send client_id in the form.");
    let id: string;
    let secret: string;
    try {
      const decoded = atob(m[1] as string);
      const colon = decoded.indexOf(":");
      id = decodeURIComponent(colon < 0 ? decoded : decoded.slice(0, colon));
      secret = colon < 0 ? "" : decoded.slice(colon + 1);
    } catch {
      throw new OAuthError("invalid_client", "The Authorization header is malformed.");
    }
    if (secret !== "") throw new OAuthError("invalid_client", "Clients here are public: no client secret is accepted.");
    fromHeader = id;
  }
  if (form.has("client_secret")) throw new OAuthError("invalid_client", "Clients here are public: no client secret is accepted.");
  const fromForm = form.get("client_id") ?? null;
  if (fromHeader !== null && fromForm !== null && fromHeader !== fromForm) {
    throw new OAuthError("invalid_request", "client_id differs between the Authorization header and the form.");
  }
  return fromHeader ?? fromForm;
}
