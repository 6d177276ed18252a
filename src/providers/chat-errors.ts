/** Upstream failures in the public vocabulary. The upstream's wording is kept, made safe to show. */
import { ApiError } from "../errors/api-error";
import { type NetworkCause, networkErrorCode } from "../lib/outbound-cause";
import { networkFailure } from "./delivery";
import { redactSecrets } from "./messages";

const CONTEXT_LENGTH = /context[ _-]?length|context[ _-]?window|maximum context|too many tokens|prompt is too long/i;
/**
 * An upstream's refusal of the prompt on its content policy: OpenAI's and Azure OpenAI's codes
 * (`content_policy_violation`, `moderation_blocked`, `content_filter` on a 400), DashScope's
 * `data_inspection_failed`, and the wording others use (DeepSeek's "Content Exists Risk").
 */
const SAFETY_CODES = new Set(["content_filter", "content_policy_violation", "moderation_blocked", "data_inspection_failed"]);
const SAFETY_WORDING =
  /content (?:management )?polic|safety system|content exists risk|input data may contain inappropriate content|flagged by (?:the |our )?(?:content|safety|moderation)/i;

/** Control characters out, anything that looks like a credential or a signed URL redacted, bounded length. */
export function safeMessage(text: string, secret?: string): string {
  let s = redactSecrets(text, [secret]);
  s = s
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/\b(sk|pk|rk)[-_][A-Za-z0-9_-]{8,}/g, "[redacted]")
    .replace(/Bearer\s+\S+/gi, "Bearer [redacted]")
    .replace(/https?:\/\/\S+\?\S*(signature|sig|token|key)=\S*/gi, "[redacted-url]")
    .trim();
  return s.length > 500 ? `${s.slice(0, 497)}...` : s;
}

/** The message and code of an OpenAI-style error body, when it is one. */
export function upstreamErrorBody(text: string): { message: string; code?: string } {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown; code?: unknown } | string; message?: unknown };
    const e = parsed.error;
    if (typeof e === "string") return { message: e };
    if (e && typeof e.message === "string") return { message: e.message, code: typeof e.code === "string" ? e.code : undefined };
    if (typeof parsed.message === "string") return { message: parsed.message };
  } catch {}
  return { message: text.slice(0, 500) };
}

/** A final (no more retries) upstream HTTP failure. */
export function fromUpstreamStatus(status: number, bodyText: string, retryAfterSeconds?: number, secret?: string): ApiError {
  const { message, code } = upstreamErrorBody(bodyText);
  const said = safeMessage(message || `HTTP ${status}`, secret);
  const details = { upstream_status: status, ...(code ? { upstream_code: code } : {}) };
  const retry = retryAfterSeconds !== undefined ? { retryAfter: retryAfterSeconds } : {};
  if (
    (status === 400 || status === 413 || status === 422) &&
    (code === "context_length_exceeded" || CONTEXT_LENGTH.test(message))
  ) {
    return new ApiError("context_length_exceeded", `The model refused the request: ${said}`, { param: "/messages", details });
  }
  if ((status === 400 || status === 422) && ((code && SAFETY_CODES.has(code.toLowerCase())) || SAFETY_WORDING.test(message))) {
    // The input was refused: not charged (the hold is released), and the same request gets the same answer.
    return new ApiError("safety_rejected", `The model refused the request on its content policy: ${said}`, {
      param: "/messages",
      details: { ...details, recovery: { action: "change_input", requires_input_change: true, client_request_id: "new" } },
    });
  }
  if (status === 400 || status === 413 || status === 422) {
    return new ApiError("invalid_request", `The model refused the request: ${said}`, { details });
  }
  if (status === 429) return new ApiError("model_rate_limited", `The model is rate-limited: ${said}`, { details, ...retry });
  if (status === 408) return new ApiError("model_timeout", `The model timed out: ${said}`, { details });
  if (status === 404 || status === 503) {
    return new ApiError("model_unavailable", `The model is not available right now: ${said}`, { details, ...retry });
  }
  if (status === 401 || status === 403) {
    return new ApiError("model_request_failed", "The model provider refused this service's credentials.", { details });
  }
  return new ApiError("model_request_failed", `The model request failed: ${said}`, { details });
}

/** An `{"error": …}` object inside an event stream or a 200 body. */
export function fromUpstreamErrorObject(error: unknown, secret?: string): ApiError {
  const e = (error ?? {}) as { message?: unknown; code?: unknown; type?: unknown };
  const message = typeof e.message === "string" ? e.message : "the model reported an error";
  const code = typeof e.code === "string" ? e.code : typeof e.type === "string" ? e.type : undefined;
  if (code === "context_length_exceeded" || CONTEXT_LENGTH.test(message))
    return fromUpstreamStatus(400, JSON.stringify({ error: e }), undefined, secret);
  if (code === "rate_limit_exceeded") return fromUpstreamStatus(429, JSON.stringify({ error: e }), undefined, secret);
  if (code === "content_filter") return contentFiltered();
  return new ApiError("model_request_failed", `The model request failed: ${safeMessage(message, secret)}`, {
    details: code ? { upstream_code: code } : undefined,
  });
}

export function contentFiltered(): ApiError {
  return new ApiError("content_filtered", "A safety filter stopped the model's output.");
}

export function timedOut(seconds: number): ApiError {
  return new ApiError("model_timeout", `The model sent nothing for ${seconds} s (timed_out).`, {
    details: { cause: "timed_out" },
  });
}

/** A fetch to `url` that threw: its kind in plain words (never the runtime's internal reference) and as `details.cause`. */
export async function unreachable(e: unknown, url: string | URL): Promise<ApiError> {
  const lost = await networkFailure(e, url);
  return new ApiError(
    networkErrorCode(lost.cause as NetworkCause),
    `The model could not be reached: ${safeMessage(lost.words)}`,
    { details: { cause: lost.cause } },
  );
}
