/**
 * What the log keeps of a request's and an answer's bodies (docs/request-log.md, "Bodies"): nothing
 * unless the tenant asked (`request_body_logging`); then the first 64 KiB of each, secrets always
 * replaced, and under `redacted` data URIs and long text replaced by their digest and size.
 */

import { sha256Hex } from "../lib/crypto";
import { headBytes } from "../lib/stream-head";

export const BODY_LOGGING = ["off", "redacted", "full"] as const;
export type BodyLogging = (typeof BODY_LOGGING)[number];
export const MAX_LOGGED_BODY = 64 * 1024;
/** Text longer than this is replaced under `redacted`. */
export const MAX_CLEAR_TEXT = 256;

/** Field names whose values are credentials, wherever they appear (compared without case, `-` as `_`). */
const SECRET_FIELDS = new Set([
  "api_key",
  "apikey",
  "key",
  "secret",
  "signing_secret",
  "secret_access_key",
  "access_key_id",
  "authorization",
  "proxy_authorization",
  "cookie",
  "set_cookie",
  "password",
  "passphrase",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "code_verifier",
  "client_secret",
  "credentials",
  "private_key",
  "service_account_json",
]);
/** Any field whose name ends like a credential's (`x_api_key`, `webhook_secret`, `session_token`; not `max_tokens`). */
const SECRET_SUFFIX = /_(api_key|apikey|secret|secret_key|token|password|private_key|credentials|authorization|cookie)$/;
/**
 * Credentials inside any string: this service's API keys (`sk_…`), OAuth tokens and codes
 * (`mcp_at_…`, `mcp_rt_…`, `mcp_ac_…`, `mcp_dc_…`), webhook signing secrets (`whsec_…`), the
 * common provider key forms (`sk-…`, AWS access key ids) and bearer tokens (16 characters or more,
 * so that prose such as "Bearer of news" stays).
 */
const SECRET_TEXT =
  /\b(sk_[a-z]{2,8}_(?:(?:live|test)_)?[0-9A-Za-z]{43}|mcp_(?:at|rt|ac|dc)_[\w-]{20,}|whsec_[A-Za-z0-9+/=]{20,}|sk-[\w-]{20,}|AKIA[0-9A-Z]{16}|Bearer\s+[\w.~+/-]{16,}=*)/g;

function secretField(name: string): boolean {
  const n = name.toLowerCase().replaceAll("-", "_");
  return SECRET_FIELDS.has(n) || SECRET_SUFFIX.test(n);
}

export interface Redacted {
  redacted: true;
  sha256: string;
  bytes: number;
}

async function digest(text: string): Promise<Redacted> {
  const bytes = new TextEncoder().encode(text);
  return { redacted: true, sha256: await sha256Hex(bytes), bytes: bytes.byteLength };
}

async function clean(value: unknown, mode: BodyLogging, name: string | null): Promise<unknown> {
  if (name !== null && secretField(name)) return "[secret]";
  if (typeof value === "string") {
    if (mode === "redacted" && (value.startsWith("data:") || value.length > MAX_CLEAR_TEXT)) return digest(value);
    return value.replace(SECRET_TEXT, "[secret]");
  }
  if (Array.isArray(value)) return Promise.all(value.map((v) => clean(v, mode, null)));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await clean(v, mode, k);
    return out;
  }
  return value;
}

/** A body as the log keeps it: JSON cleaned of secrets (and redacted), cut at 64 KiB; other text, secrets replaced. */
export async function loggedBody(text: string | null, mode: BodyLogging): Promise<string | null> {
  if (mode === "off" || text === null || text === "") return null;
  let kept: string;
  try {
    kept = JSON.stringify(await clean(JSON.parse(text), mode, null));
  } catch {
    // Not JSON (an event stream, say): its data lines may carry JSON; secrets are replaced as text.
    kept = text.replace(SECRET_TEXT, "[secret]");
  }
  return cut(kept);
}

/** The first 64 KiB of `text` (whole characters). */
function cut(text: string): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength <= MAX_LOGGED_BODY) return text;
  return new TextDecoder().decode(bytes.subarray(0, MAX_LOGGED_BODY)).replace(/\uFFFD$/, "");
}

/** The head of an answer's body, read from a copy of it, without holding up the caller (cut to 64 KiB by `loggedBody`). */
export async function readHead(response: Response): Promise<string | null> {
  if (!response.body) return null;
  return new TextDecoder().decode(await headBytes(response, MAX_LOGGED_BODY * 2));
}
