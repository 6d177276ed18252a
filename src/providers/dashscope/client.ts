/**
 * Alibaba Cloud Model Studio (DashScope) as this service calls it: `Authorization: Bearer <API
 * key>` on every call, and the reading of DashScope's error answers, `{request_id, code, message}`
 * (Model Studio "Error codes" page). The same `code` and `message` come back inside a failed task's
 * `output`, so one reading serves both.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { type CallOptions, call, type Described } from "../http";
import { safeProviderMessage } from "../messages";

export function authHeaders(config: ProviderConfig): Record<string, string> {
  return { Authorization: `Bearer ${config.apiKey}` };
}

/** DashScope's wording can quote the media URLs it could not fetch: those are this service's signed ones. */
export function withoutUrls(text: string): string {
  return text.replace(/\b(?:https?:\/\/|oss:\/\/|data:)[^\s"'<>)\]]*/gi, "[url]");
}

/** Wording made safe to show: no URLs, no key, bounded. */
export function safeWording(config: ProviderConfig, text: string, max = 600): string {
  return safeProviderMessage(withoutUrls(text), [config.apiKey], max);
}

export interface DashScopeError {
  code?: string;
  message?: string;
}

/** `{code, message}` from an error body or a failed task's `output`. */
export function errorOf(value: unknown): DashScopeError | null {
  if (!value || typeof value !== "object") return null;
  const e = value as Record<string, unknown>;
  const out: DashScopeError = {};
  if (typeof e.code === "string" && e.code) out.code = e.code;
  if (typeof e.message === "string" && e.message) out.message = e.message;
  return out.code || out.message ? out : null;
}

export function errorBody(text: string): DashScopeError | null {
  try {
    return errorOf(JSON.parse(text));
  } catch {
    return null;
  }
}

/** `Code: message`, or whichever of the two there is. */
export function wordingOf(error: DashScopeError | null, fallback: string): string {
  const message = error?.message?.trim() ?? "";
  const code = error?.code ?? "";
  if (code && message) return message.includes(code) ? message : `${code}: ${message}`;
  return code || message || fallback;
}

/**
 * The moderation outcome an error names. `DataInspectionFailed` covers both sides; its documented
 * messages say which ("Input data may contain…" / "Output data may contain…"). Without a side, a
 * refusal of the submission is about the input (nothing was generated yet) and a failure of a task
 * that ran is about the output. `IPInfringementSuspect` refuses an input that may infringe
 * intellectual property. `InvalidParameter.DataInspection` is a media download failure during the
 * review, not a verdict, so it is not matched.
 */
export function safetyCode(
  error: DashScopeError | null,
  stage: "submission" | "task",
): "safety_rejected" | "content_filtered" | null {
  const code = (error?.code ?? "").toLowerCase();
  const message = error?.message ?? "";
  const inspected = code === "datainspectionfailed" || code === "data_inspection_failed";
  if (code === "ipinfringementsuspect") return "safety_rejected";
  if (!inspected) {
    // A proxy that drops the code but keeps the documented sentence.
    if (code) return null;
    if (/\binput data may contain inappropriate content/i.test(message)) return "safety_rejected";
    if (/\boutput data may contain inappropriate content/i.test(message)) return "content_filtered";
    return null;
  }
  if (/\binput\b/i.test(message) && !/\boutput\b/i.test(message)) return "safety_rejected";
  if (/\boutput\b/i.test(message) && !/\binput\b/i.test(message)) return "content_filtered";
  return stage === "submission" ? "safety_rejected" : "content_filtered";
}

/**
 * Codes that say this route cannot serve now whatever is asked: the key, the account's standing,
 * the model not opened for it, the free quota used up. Another route may serve.
 */
const ROUTE_UNUSABLE = new Set([
  "invalidapikey",
  "arrearage",
  "accessdenied",
  "accessdenied.unpurchased",
  "model.accessdenied",
  "workspace.accessdenied",
  "allocationquota.freetieronly",
  "modelnotfound",
  "model.notfound",
]);

/** The public code a DashScope error maps to, when it says more than the HTTP status. */
export function codeForError(
  error: DashScopeError | null,
  stage: "submission" | "task",
): { code: ErrorCode; retryable: boolean } | null {
  const safety = safetyCode(error, stage);
  if (safety) return { code: safety, retryable: false };
  const code = (error?.code ?? "").toLowerCase();
  if (ROUTE_UNUSABLE.has(code)) return { code: "model_unavailable", retryable: true };
  if (code.startsWith("throttling")) return { code: "model_rate_limited", retryable: true };
  if (code === "internalerror.timeout" || code === "requesttimeout") return { code: "model_timeout", retryable: true };
  return null;
}

/** Reads a DashScope error answer for the shared client. */
export function describeDashScope(status: number, text: string): Described {
  const error = errorBody(text);
  const message = withoutUrls(wordingOf(error, text.slice(0, 300)));
  // Throttling (429) and server errors keep the status's reading (retryable, Retry-After honoured).
  if (status === 429 || status >= 500) return { message };
  const known = codeForError(error, "submission");
  return known ? { message, ...known } : { message };
}

export function dashscopeCall(config: ProviderConfig, opts: CallOptions): Promise<Response> {
  return call(config, authHeaders(config), { describe: describeDashScope, ...opts });
}
