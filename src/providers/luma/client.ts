/**
 * Luma's Agents API as this service calls it (docs.agents.lumalabs.ai; the official SDKs
 * lumalabs/luma-agents-python and -typescript 0.3.0, generated from Luma's OpenAPI spec):
 * `Authorization: Bearer <key>` on every call, and Luma's error bodies. Synchronous errors are told
 * apart by their HTTP status, with the specifics in `detail` (error-handling guide): 400 invalid
 * parameters, 401 key, 402 insufficient balance, 403 access denied, 413 input too large, 422
 * rejected combination or unreadable media, 429 rate limited (Retry-After), 502/503 retry.
 */
import type { ProviderConfig } from "../config";
import { type CallOptions, call, type Described, verifyWithRead } from "../http";
import { safeProviderMessage } from "../messages";

export const LUMA_BASE_URL = "https://agents.lumalabs.ai/v1";

export function authHeaders(config: ProviderConfig): Record<string, string> {
  return { Authorization: `Bearer ${config.apiKey}` };
}

/** Luma's wording can quote the signed input URLs it was given: none of them is for the client. */
export function safeWording(config: ProviderConfig, text: string, max = 600): string {
  const noUrls = text.replace(/\b(?:https?:\/\/|data:)[^\s"'<>)\]]*/gi, "[url]");
  return safeProviderMessage(noUrls, [config.apiKey], max);
}

/** `detail` as a string, a FastAPI-style list of `{msg}`, or an object with a message. */
export function detailOf(text: string): string | null {
  try {
    const body = JSON.parse(text) as Record<string, unknown> | null;
    const d = body?.detail ?? body?.error ?? body?.message;
    if (typeof d === "string") return d;
    if (Array.isArray(d))
      return d.map((x) => (x && typeof x === "object" && typeof x.msg === "string" ? x.msg : JSON.stringify(x))).join("; ");
    if (d && typeof d === "object" && typeof (d as { message?: unknown }).message === "string")
      return (d as { message: string }).message;
  } catch {}
  return null;
}

// Luma documents moderation as an asynchronous failure (`content_moderated`); a refusal worded the
// same way at submission is read as the same outcome rather than as a plain 400.
const MODERATION = /\b(?:moderat\w*|content (?:policy|guidelines)|safety|nsfw|inappropriate)\b/i;

export function describeLuma(status: number, text: string): Described {
  const detail = detailOf(text) ?? text.slice(0, 500);
  if ((status === 400 || status === 422) && MODERATION.test(detail)) return { message: detail, code: "safety_rejected" };
  // No balance on this account: another route (another account or provider) may still serve.
  if (status === 402) return { message: detail, code: "model_unavailable", retryable: true };
  return { message: detail };
}

export function lumaCall(config: ProviderConfig, opts: CallOptions): Promise<Response> {
  return call(config, authHeaders(config), { describe: describeLuma, ...opts });
}

/**
 * The cheapest authenticated read: one file of the account's namespace (`GET /files?limit=1`,
 * answered `{data, has_more, next_cursor}`; Luma's Agents SDK, `files.list`). A key Luma does not
 * know is 401.
 */
export async function verifyKey(config: ProviderConfig): Promise<void> {
  await verifyWithRead(config, authHeaders(config), "/files?limit=1", describeLuma);
}
