/**
 * MiniMax as this service calls it (platform.minimax.io API reference, and the official
 * MiniMax-MCP client, `minimax_mcp/client.py`): `Authorization: Bearer <API key>` on every call,
 * JSON bodies, and errors that come back as **HTTP 200** with `base_resp.status_code != 0`
 * (`base_resp.status_msg` says why). The codes this adapter reads (MiniMax's errorcode page, and
 * the codes its official CLI, MiniMax-AI/cli `src/errors/api.ts`, knows):
 *   1000 unknown error, 1001 timeout, 1024 internal error,
 *   1033 system error                                      → retryable failures
 *   1002 rate limit, 1039 token limit, 1041 connection limit,
 *   2045 rate growth limit                                 → model_rate_limited (retried with backoff)
 *   1004 authentication failed, 2049 invalid API key       → model_unavailable (another route may serve)
 *   1008 insufficient balance, 1028/1030 quota exhausted,
 *   2056 usage limit of the plan's window,
 *   2061 model not on the account's plan                   → model_unavailable (another route may serve)
 *   1026 input flagged as sensitive                        → safety_rejected (never retried)
 *   1027 output flagged as sensitive                       → content_filtered (never retried)
 *   anything else (2013 invalid parameters, …)             → model_request_failed, not retryable
 * The CLI reads 1039 as a content filter; MiniMax's own errorcode page names it "token limit",
 * a rate limit to retry later, and that page is followed here.
 * MiniMax documents no Retry-After; one is honoured when a proxy sends it.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { type CallOptions, call, type Described, genericDescribe, retryAfterMs, verifyWithRead } from "../http";
import { safeProviderMessage } from "../messages";
import { ProviderError } from "../types";

export function authHeaders(config: ProviderConfig): Record<string, string> {
  return { Authorization: `Bearer ${config.apiKey}` };
}

export interface BaseResp {
  status_code: number;
  status_msg: string;
}

/** `base_resp` of a MiniMax body, or null when it has none. */
export function baseRespOf(body: unknown): BaseResp | null {
  const b = (body as { base_resp?: unknown } | null)?.base_resp as Record<string, unknown> | undefined;
  if (!b || typeof b !== "object" || typeof b.status_code !== "number") return null;
  return { status_code: b.status_code, status_msg: typeof b.status_msg === "string" ? b.status_msg : "" };
}

/** The public code of a MiniMax status code. */
export function codeForStatusCode(code: number): { code: ErrorCode; retryable: boolean } {
  switch (code) {
    case 1002:
    case 1039:
    case 1041:
    case 2045:
      return { code: "model_rate_limited", retryable: true };
    case 1001:
      return { code: "model_timeout", retryable: true };
    case 1000:
    case 1024:
    case 1033:
      return { code: "model_request_failed", retryable: true };
    case 1004:
    case 2049:
    case 1008:
    case 1028:
    case 1030:
    case 2056:
    case 2061:
      return { code: "model_unavailable", retryable: true };
    case 1026:
      return { code: "safety_rejected", retryable: false };
    case 1027:
      return { code: "content_filtered", retryable: false };
    default:
      return { code: "model_request_failed", retryable: false };
  }
}

/** MiniMax's words with its code, made safe (no key, no signed URL). */
export function wordingOf(config: ProviderConfig, base: BaseResp): string {
  const msg = safeProviderMessage(base.status_msg || "no message", [config.apiKey], 500);
  return `${config.name}: ${msg} (status_code ${base.status_code})`;
}

/** The failure a non-zero `base_resp` stands for. A refusal: MiniMax answered, so nothing was accepted. */
export function baseRespError(config: ProviderConfig, base: BaseResp, headers?: Headers): ProviderError {
  const { code, retryable } = codeForStatusCode(base.status_code);
  const after = headers ? retryAfterMs(headers) : undefined;
  return new ProviderError(code, wordingOf(config, base), {
    retryable,
    accepted: "no",
    status: 200,
    ...(after !== undefined ? { retryAfterMs: after } : {}),
  });
}

/** Reads a non-2xx answer (a gateway in front of MiniMax, or an HTTP 429): base_resp when there is one. */
export function describeMiniMax(status: number, text: string): Described {
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {}
  const base = baseRespOf(body);
  if (!base || base.status_code === 0) return genericDescribe(status, text);
  const message = `${base.status_msg || "no message"} (status_code ${base.status_code})`;
  const known = codeForStatusCode(base.status_code);
  // Codes that say more than the status (safety, balance, auth) win; the rest follow the HTTP status.
  if (known.code === "model_request_failed" || known.code === "model_timeout") return { message };
  return { message, ...known };
}

export function minimaxCall(config: ProviderConfig, opts: CallOptions): Promise<Response> {
  return call(config, authHeaders(config), { describe: describeMiniMax, ...opts });
}

/** The JSON of a 2xx answer; null when it is not JSON. */
export async function readBody(res: Response): Promise<{ text: string; bytes: Uint8Array; json: unknown }> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { text, bytes, json };
}

export function httpUrl(value: unknown): string | null {
  return typeof value === "string" && /^https?:\/\//i.test(value) ? value : null;
}

/** `data.audio` in hex (MiniMax's default output_format) as bytes; null when it is not hex. */
export function fromHex(hex: string): Uint8Array | null {
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** MiniMax's codes for a key it does not accept (the error-code table: 1004 auth failed, 2049 invalid key). */
const KEY_REFUSED = new Set([1004, 2049]);

/**
 * The cheapest authenticated read: the model list (`GET /v1/models`, platform.minimax.io "List
 * Models", Bearer). MiniMax may refuse a key as an HTTP 200 whose `base_resp` says 1004 or 2049:
 * that is a refusal of the key like a 401.
 */
export async function verifyKey(config: ProviderConfig): Promise<void> {
  const res = await verifyWithRead(config, authHeaders(config), "/v1/models", describeMiniMax);
  const base = baseRespOf(await res.json().catch(() => null));
  if (!base || base.status_code === 0) return;
  const refused = KEY_REFUSED.has(base.status_code);
  throw new ProviderError(refused ? "model_unavailable" : codeForStatusCode(base.status_code).code, wordingOf(config, base), {
    retryable: !refused,
    ...(refused ? { status: 401, keyFault: true } : {}),
  });
}
