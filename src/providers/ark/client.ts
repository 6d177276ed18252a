/**
 * ByteDance Ark (BytePlus ModelArk, Volcengine Ark) as this service calls it: `Authorization:
 * Bearer <API key>` on every call, and the reading of Ark's error bodies,
 * `{"error": {"code", "message", "param", "type"}}`, whose codes are listed in the common error
 * code pages (docs.byteplus.com/en/docs/ModelArk/1299023, volcengine.com/docs/82379/1299023).
 * The same codes come back in a failed video task's `error` and in a failed image's `data[].error`.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { type CallOptions, call, type Described, verifyWithRead } from "../http";
import { safeProviderMessage } from "../messages";

export function authHeaders(config: ProviderConfig): Record<string, string> {
  return { Authorization: `Bearer ${config.apiKey}` };
}

/**
 * Ark's wording can quote URLs (an input it could not fetch, an output). None is for the client:
 * the input URLs are this service's signed ones, whatever their query looks like.
 */
export function withoutUrls(text: string): string {
  return text.replace(/\b(?:https?:\/\/|data:)[^\s"'<>)\]]*/gi, "[url]");
}

/** Ark's wording made safe to show: no URLs, no key, no control characters, bounded. */
export function safeWording(config: ProviderConfig, text: string, max = 600): string {
  return safeProviderMessage(withoutUrls(text), [config.apiKey], max);
}

export interface ArkError {
  code?: string;
  message?: string;
}

/** `{code, message}` as Ark sends it, from whatever object carries it. */
export function arkError(value: unknown): ArkError | null {
  if (!value || typeof value !== "object") return null;
  const e = value as Record<string, unknown>;
  const out: ArkError = {};
  if (typeof e.code === "string" && e.code) out.code = e.code;
  if (typeof e.message === "string" && e.message) out.message = e.message;
  return out.code || out.message ? out : null;
}

/** The `error` object of an error body, or null when the body is not Ark's shape. */
export function errorBody(text: string): ArkError | null {
  try {
    return arkError((JSON.parse(text) as { error?: unknown } | null)?.error);
  } catch {
    return null;
  }
}

// The review outcomes by code (common error codes, "ModelArk error codes"): the family name says
// which side was refused, and a suffix such as `.PolicyViolation` or `.PrivacyInformation` says why.
// `SensitiveContentDetected` with no side is the older name of the input-text refusal.
const INPUT_REFUSAL =
  /^(?:Input(?:Text|Image|Video|Audio)(?:SensitiveContentDetected|RiskDetection)|SensitiveContentDetected)(?:\.|$)/;
const OUTPUT_REFUSAL = /^Output(?:Text|Image|Video|Audio)(?:SensitiveContentDetected|RiskDetection)(?:\.|$)/;
// For a proxy that drops the code but keeps the documented sentence.
const INPUT_WORDING = /\binput (?:text|image|video|audio)\b[^.]*\b(?:sensitive|real person|copyright|violates)/i;
const OUTPUT_WORDING = /\boutput (?:text|image|video|audio)\b[^.]*\b(?:sensitive|copyright|violates)/i;

/** The safety outcome an Ark error names: a refused input, a filtered output, or neither. */
export function safetyCode(error: ArkError | null): "safety_rejected" | "content_filtered" | null {
  const code = error?.code ?? "";
  if (INPUT_REFUSAL.test(code)) return "safety_rejected";
  if (OUTPUT_REFUSAL.test(code)) return "content_filtered";
  if (code) return null;
  const message = error?.message ?? "";
  if (INPUT_WORDING.test(message)) return "safety_rejected";
  if (OUTPUT_WORDING.test(message)) return "content_filtered";
  return null;
}

/**
 * Codes that say this route cannot serve now whatever is asked (the account, the key, the model's
 * activation, a quota): another route may, so they are retryable refusals (model_unavailable).
 * `QuotaExceeded` covers the free quota, the queued-task cap and the plan limits; `SetLimitExceeded`
 * is the account's own spending cap; `ServerOverloaded` comes as a 429 but is capacity, not our rate.
 */
const ROUTE_UNUSABLE = new Set([
  "AccountOverdueError",
  "AccessDenied",
  "InvalidAccountStatus",
  "InvalidSubscription",
  "ModelNotOpen",
  "QuotaExceeded",
  "SetLimitExceeded",
  "ServerOverloaded",
  "InflightBatchsizeExceeded",
  "InvalidEndpoint.ClosedEndpoint",
  "InvalidEndpoint.NotFound",
  "InvalidEndpointOrModel.NotFound",
  "InvalidEndpointOrModel.ModelIDAccessDisabled",
  "OperationDenied.ServiceNotOpen",
  "OperationDenied.ServiceOverdue",
  "OperationDenied.PermissionDenied",
]);

/** A code and its sentence as one line: `InputTextSensitiveContentDetected: The request failed because …`. */
export function wordingOf(error: ArkError | null, fallback: string): string {
  const message = error?.message?.trim() ?? "";
  const code = error?.code ?? "";
  if (code && message) return message.includes(code) ? message : `${code}: ${message}`;
  return code || message || fallback;
}

/** The public code an Ark error code maps to, when it says more than the HTTP status. */
export function codeForArkError(error: ArkError | null): { code: ErrorCode; retryable: boolean } | null {
  const safety = safetyCode(error);
  if (safety) return { code: safety, retryable: false };
  const code = error?.code ?? "";
  // The review service itself failed: nothing was judged, asking again may pass.
  if (code === "ContentSecurityDetectionError") return { code: "model_request_failed", retryable: true };
  if (ROUTE_UNUSABLE.has(code)) return { code: "model_unavailable", retryable: true };
  return null;
}

/** Reads an Ark error answer for the shared client. */
export function describeArk(status: number, text: string): Described {
  const error = errorBody(text);
  const message = withoutUrls(wordingOf(error, text.slice(0, 300)));
  // A 429 is throttling whatever its wording; safety codes only come with refusals (400).
  if (status === 429 && !ROUTE_UNUSABLE.has(error?.code ?? "")) return { message };
  const known = codeForArkError(error);
  return known ? { message, ...known } : { message };
}

/** One Ark call through the shared client. */
export function arkCall(config: ProviderConfig, opts: CallOptions): Promise<Response> {
  return call(config, authHeaders(config), { describe: describeArk, ...opts });
}

/**
 * The cheapest authenticated read: one row of the account's generation tasks (`GET
 * /contents/generations/tasks?page_num=1&page_size=1`, volcengine.com/docs/82379/1521675; BytePlus
 * ModelArk documents the same list). A key Ark does not know is 401 AuthenticationError.
 */
export async function verifyKey(config: ProviderConfig): Promise<void> {
  await verifyWithRead(config, authHeaders(config), "/contents/generations/tasks?page_num=1&page_size=1", describeArk);
}
