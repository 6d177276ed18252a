/**
 * Talking to Black Forest Labs (docs.bfl.ai): the `x-key` credential, the hosts a polling URL may
 * point at, and the reading of BFL's error answers for `call`.
 *
 * BFL's API is FastAPI-shaped: validation failures are 422 `{detail: [{loc, msg, type}]}` and other
 * refusals `{detail: "…"}`; BFL's own integration guide also shows `{error: "<code>", message: "…"}`
 * bodies (insufficient_credits, rate_limit_exceeded). The status codes it documents
 * (help.bfl.ai "Why did my request fail?"): 400 and 422 invalid input, 402 insufficient credits,
 * 403 a key without access, 429 over the concurrency limit, 500 and 503 temporary failures.
 */
import type { ProviderConfig } from "../config";
import { type Described, verifyWithRead } from "../http";
import { safeProviderMessage } from "../messages";

export const BFL_BASE_URL = "https://api.bfl.ai";

export function authHeaders(config: ProviderConfig): Record<string, string> {
  return { "x-key": config.apiKey, Accept: "application/json" };
}

/**
 * Whether a URL BFL handed back may be called with the key: the configured host (a proxy, a
 * regional endpoint, a fake), or BFL's own API hosts over https (api.bfl.ai, api.eu.bfl.ai,
 * api.us.bfl.ai and the cluster hosts their polling URLs name, such as api.eu2.bfl.ai).
 */
export function trustedUrl(config: ProviderConfig, value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > 2000) return undefined;
  try {
    const url = new URL(value);
    if (url.username || url.password) return undefined;
    if (url.origin === new URL(config.baseUrl).origin) return url.toString();
    const bfl = url.protocol === "https:" && /^api(?:\.[a-z0-9-]+)*\.bfl\.ai$/i.test(url.hostname);
    return bfl && !url.port ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

interface ErrorBody {
  detail?: unknown;
  error?: unknown;
  message?: unknown;
}

function parse(text: string): ErrorBody | null {
  try {
    const body = JSON.parse(text) as unknown;
    return body && typeof body === "object" && !Array.isArray(body) ? (body as ErrorBody) : null;
  } catch {
    return null;
  }
}

/** The human part of an error answer; validation lists name the field each message is about. */
function wording(body: ErrorBody | null, text: string): string {
  if (!body) return text.slice(0, 500);
  if (typeof body.detail === "string") return body.detail;
  if (Array.isArray(body.detail)) {
    return body.detail
      .filter((d): d is { loc?: unknown; msg?: unknown } => !!d && typeof d === "object")
      .map((d) => {
        const loc = Array.isArray(d.loc) ? d.loc.filter((l) => l !== "body").join(".") : "";
        const msg = typeof d.msg === "string" ? d.msg : "invalid value";
        return loc ? `${loc}: ${msg}` : msg;
      })
      .join("; ");
  }
  const code = typeof body.error === "string" ? body.error : undefined;
  const message = typeof body.message === "string" ? body.message : undefined;
  if (code && message) return `${message} (${code})`;
  return message ?? code ?? text.slice(0, 500);
}

/** A refusal on content grounds, in BFL's words (`content_policy_violation` in its guide, or a moderation notice). */
const SAFETY_ERRORS = new Set(["content_policy_violation", "request_moderated", "moderated"]);
const SAFETY_WORDING = /\b(?:request|content) moderated\b|\bmoderation (?:filter|flagged|reasons?)\b|content[ _-]policy/i;

export function isSafetyRefusal(body: ErrorBody | null, message: string): boolean {
  if (typeof body?.error === "string" && SAFETY_ERRORS.has(body.error.toLowerCase())) return true;
  // Validation lists name fields such as safety_tolerance: never read as a refusal.
  if (Array.isArray(body?.detail)) return false;
  return SAFETY_WORDING.test(message);
}

/** Reads BFL's error answer for `call`: safety refusals, the account out of credits, the rest by status. */
export function describeBfl(status: number, text: string): Described {
  const body = parse(text);
  const message = wording(body, text);
  if ((status === 400 || status === 422) && isSafetyRefusal(body, message)) {
    return { message, code: "safety_rejected", retryable: false };
  }
  // The account behind this deployment's key has run out: another route (or a top-up) may serve.
  if (status === 402) return { message: message || "insufficient credits", code: "model_unavailable", retryable: true };
  return { message };
}

/** Provider words made safe to show: no key, no signed URLs, bounded. */
export function safeWording(config: ProviderConfig, text: string, max = 500): string {
  return safeProviderMessage(text, [config.apiKey], max);
}

/** The cheapest authenticated call: the account's credits (`GET /v1/credits`). */
export async function verifyKey(config: ProviderConfig): Promise<void> {
  await verifyWithRead(config, authHeaders(config), "/v1/credits", describeBfl);
}
