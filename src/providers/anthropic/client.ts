/**
 * Talking to Anthropic's Messages API: the `x-api-key` credential and the `anthropic-version`
 * header every request carries, and the reading of its error bodies
 * `{type: "error", error: {type, message}, request_id}` into the public vocabulary, both for media
 * tasks (ProviderError through `call`) and for chat (ApiError).
 *
 * Statuses and error types, from Anthropic's "Errors" page: 400 invalid_request_error,
 * 401 authentication_error, 402 billing_error, 403 permission_error, 404 not_found_error,
 * 413 request_too_large, 429 rate_limit_error, 500 api_error, 504 timeout_error,
 * 529 overloaded_error. The same `error` object arrives as an `error` event inside a stream.
 */
import { ApiError } from "../../errors/api-error";
import type { ErrorCode } from "../../errors/codes";
import { fromUpstreamStatus, safeMessage } from "../chat-errors";
import type { ProviderConfig } from "../config";
import { type Described, verifyWithRead } from "../http";

export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** The API version this adapter is written against (the official SDK sends the same). */
export const ANTHROPIC_VERSION = "2023-06-01";
export const MESSAGES_PATH = "/v1/messages";

export function authHeaders(config: ProviderConfig): Record<string, string> {
  return { "x-api-key": config.apiKey, "anthropic-version": ANTHROPIC_VERSION };
}

export interface AnthropicErrorBody {
  type?: string;
  message: string;
}

/** The `error` object of an error body or event; the raw text when it is not one. */
export function errorOf(text: string): AnthropicErrorBody {
  try {
    return errorObject(JSON.parse(text));
  } catch {
    return { message: text.slice(0, 500) };
  }
}

export function errorObject(body: unknown): AnthropicErrorBody {
  const e = (body as { error?: unknown } | null)?.error as { type?: unknown; message?: unknown } | undefined;
  if (e && typeof e === "object") {
    return {
      ...(typeof e.type === "string" ? { type: e.type } : {}),
      message: typeof e.message === "string" ? e.message : JSON.stringify(e).slice(0, 500),
    };
  }
  return { message: JSON.stringify(body ?? null).slice(0, 500) };
}

/** The HTTP status each documented error type comes with (used for errors that arrive in a stream). */
const STATUS_OF_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * Anthropic documents that "API input and copyright validation" refusals come as 400 errors, but
 * not their wording. These patterns are the wording seen in practice (unconfirmed by the docs):
 * a blocked output is a filtered output; a usage-policy refusal refused the request.
 */
const OUTPUT_BLOCKED = /output blocked by (?:the )?content filtering/i;
const POLICY_REFUSAL = /usage polic(?:y|ies)|content filtering polic/i;

function safetyCode(status: number, e: AnthropicErrorBody): "safety_rejected" | "content_filtered" | null {
  if (status !== 400) return null;
  if (OUTPUT_BLOCKED.test(e.message)) return "content_filtered";
  if (POLICY_REFUSAL.test(e.message)) return "safety_rejected";
  return null;
}

function wording(e: AnthropicErrorBody): string {
  return e.type && !e.message.includes(e.type) ? `${e.message} (${e.type})` : e.message;
}

/** Reads an error answer for `call` (media tasks): safety refusals, billing, overload, and `x-should-retry`. */
export function describeAnthropic(status: number, text: string, headers: Headers): Described {
  const e = errorOf(text);
  const message = wording(e);
  const safety = safetyCode(status, e);
  if (safety) return { message, code: safety, retryable: false };
  // The account cannot pay: waiting will not help this route, another route may serve.
  if (status === 402 || e.type === "billing_error") return { message, code: "model_unavailable", retryable: true };
  if (status === 529 || e.type === "overloaded_error") return { message, code: "model_unavailable", retryable: true };
  // The official SDK lets this header decide whether a failure is worth repeating; so does this adapter.
  const advice = headers.get("x-should-retry");
  if (advice === "true" || advice === "false") return { message, retryable: advice === "true" };
  return { message };
}

/** A final chat failure (no more retries) from an HTTP status and Anthropic's error body. */
export function chatFailure(status: number, text: string, retryAfterSeconds: number | undefined, secret: string): ApiError {
  return chatFailureOf(status, errorOf(text), retryAfterSeconds, secret);
}

/** An `error` event inside a stream, in the public vocabulary. */
export function streamFailure(body: unknown, secret: string): ApiError {
  const e = errorObject(body);
  return chatFailureOf(STATUS_OF_TYPE[e.type ?? ""] ?? 500, e, undefined, secret);
}

function chatFailureOf(status: number, e: AnthropicErrorBody, retryAfter: number | undefined, secret: string): ApiError {
  const said = safeMessage(wording(e), secret);
  const details = { upstream_status: status, ...(e.type ? { upstream_code: e.type } : {}) };
  const retry = retryAfter !== undefined ? { retryAfter } : {};
  const safety = safetyCode(status, e);
  if (safety === "content_filtered")
    return new ApiError("content_filtered", `A safety filter stopped the model's output: ${said}`, { details });
  if (safety === "safety_rejected") return new ApiError("safety_rejected", `The model refused the request: ${said}`, { details });
  if (status === 429 || e.type === "rate_limit_error") {
    return new ApiError("model_rate_limited", `The model is rate-limited: ${said}`, { details, ...retry });
  }
  if (status === 529 || e.type === "overloaded_error") {
    return new ApiError("model_unavailable", `The model is overloaded right now: ${said}`, { details, ...retry });
  }
  if (status === 402 || e.type === "billing_error") {
    return new ApiError("model_unavailable", `The model is not available right now: ${said}`, { details });
  }
  if (status === 504 || e.type === "timeout_error")
    return new ApiError("model_timeout", `The model timed out: ${said}`, { details });
  // The rest (400 and its context-length case, 401/403, 404, 413, 500) reads as every chat upstream's does.
  const body = JSON.stringify({ error: { message: e.message, ...(e.type ? { code: e.type } : {}) } });
  return fromUpstreamStatus(status, body, retryAfter, secret);
}

/** Error codes of chat failures that a fresh attempt may cure (before the first byte only). */
export const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set([
  "model_rate_limited",
  "model_unavailable",
  "model_request_failed",
  "model_timeout",
]);

/** The cheapest authenticated call: the model list (`GET /v1/models`). */
export async function verifyKey(config: ProviderConfig): Promise<void> {
  await verifyWithRead(config, authHeaders(config), "/v1/models?limit=1", describeAnthropic);
}
