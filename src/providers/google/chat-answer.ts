/**
 * A Gemini answer as an OpenAI `chat.completion`, and Google's errors in the public vocabulary.
 *
 * Answer: text parts (never `thought` parts) → content; `functionCall` parts → tool_calls;
 * finishReason STOP → stop (tool_calls when the model called a function), MAX_TOKENS → length, the
 * safety family (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_*) → content_filter,
 * anything else → stop. A prompt blocked outright (`promptFeedback.blockReason`, no candidates) is
 * `safety_rejected`. Usage: prompt_tokens = promptTokenCount + toolUsePromptTokenCount (cached
 * tokens are inside it, reported as prompt_tokens_details.cached_tokens = cachedContentTokenCount);
 * completion_tokens = candidatesTokenCount + thoughtsTokenCount, with the thoughts as
 * completion_tokens_details.reasoning_tokens — OpenAI's convention, so nothing is billed twice.
 */
import { ApiError } from "../../errors/api-error";
import { fromUpstreamStatus, safeMessage } from "../chat-errors";
import type { ChatObject } from "../chat-upstream";
import { keyRefused, statusOf, statusWord } from "./client";
import { SAFETY_FINISH } from "./content";
import type { Json } from "./gemini-json";

export function finishReasonOf(
  reason: unknown,
  calledTools: boolean,
): "stop" | "length" | "tool_calls" | "content_filter" | null {
  if (typeof reason !== "string" || reason === "" || reason === "FINISH_REASON_UNSPECIFIED") return null;
  if (SAFETY_FINISH.has(reason)) return "content_filter";
  if (reason === "MAX_TOKENS") return "length";
  return calledTools ? "tool_calls" : "stop";
}

const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** usageMetadata in OpenAI's shape (cached inside prompt, reasoning inside completion). */
export function usageOf(u: Json | undefined): Json {
  const prompt = count(u?.promptTokenCount) + count(u?.toolUsePromptTokenCount);
  const thoughts = count(u?.thoughtsTokenCount);
  const completion = count(u?.candidatesTokenCount) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: Math.min(prompt, count(u?.cachedContentTokenCount)) },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}

function callId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

export function toolCall(part: Json): Json {
  const fc = part.functionCall ?? {};
  const signature = typeof part.thoughtSignature === "string" && part.thoughtSignature ? part.thoughtSignature : undefined;
  return {
    id: typeof fc.id === "string" && fc.id ? fc.id : callId(),
    type: "function",
    function: { name: String(fc.name ?? ""), arguments: JSON.stringify(fc.args ?? {}) },
    ...(signature ? { extra_content: { google: { thought_signature: signature } } } : {}),
  };
}

export function partsOf(candidate: Json | undefined): Json[] {
  const parts = candidate?.content?.parts;
  return Array.isArray(parts) ? parts.filter((p) => p && typeof p === "object") : [];
}

export function blocked(answer: Json): ApiError | null {
  const reason = answer?.promptFeedback?.blockReason;
  const candidates = Array.isArray(answer?.candidates) ? answer.candidates : [];
  if (typeof reason !== "string" || !reason || reason === "BLOCKED_REASON_UNSPECIFIED" || candidates.length > 0) return null;
  const said =
    typeof answer.promptFeedback.blockReasonMessage === "string"
      ? `: ${safeMessage(answer.promptFeedback.blockReasonMessage)}`
      : "";
  return new ApiError("safety_rejected", `The model's safety review refused the prompt (${safeMessage(reason)})${said}.`, {
    details: { upstream_code: safeMessage(reason) },
  });
}

export function chatId(answer: Json): string {
  return typeof answer?.responseId === "string" && /^[A-Za-z0-9_-]{1,128}$/.test(answer.responseId)
    ? `chatcmpl-${answer.responseId}`
    : `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
}

/** A whole generateContent answer as a chat.completion. */
export function toCompletion(answer: Json, model: string): ChatObject {
  const refused = blocked(answer);
  if (refused) throw refused;
  const candidates: Json[] = Array.isArray(answer?.candidates) ? answer.candidates : [];
  if (candidates.length === 0) throw new ApiError("model_request_failed", "The model's answer has no candidates.");
  const choices = candidates.map((c, i) => {
    const parts = partsOf(c).filter((p) => p.thought !== true);
    const text = parts.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
    const calls = parts.filter((p) => p.functionCall && typeof p.functionCall === "object").map(toolCall);
    return {
      index: typeof c.index === "number" ? c.index : i,
      message: {
        role: "assistant",
        content: text || (calls.length > 0 ? null : ""),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      },
      logprobs: null,
      finish_reason: finishReasonOf(c.finishReason, calls.length > 0) ?? "stop",
    };
  });
  return {
    id: chatId(answer),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices,
    ...(answer.usageMetadata ? { usage: usageOf(answer.usageMetadata) } : {}),
  };
}

/** An `{error: {code, message, status}}` inside a stream or a 200 body, in the public vocabulary. */
export function fromGoogleError(error: Json, secret?: string): ApiError {
  const status = typeof error?.code === "number" && error.code >= 400 ? error.code : 500;
  return fromGoogleStatus(status, JSON.stringify({ error }), undefined, secret);
}

const CONTEXT = /input token count.*exceeds the maximum|exceeds the maximum number of tokens|context (length|window)/i;

/** A final upstream HTTP failure, Google's body reworded for the shared mapping. */
export function fromGoogleStatus(status: number, text: string, retryAfterSeconds?: number, secret?: string): ApiError {
  const e = statusOf(text);
  const message = typeof e?.message === "string" && e.message ? e.message : text.slice(0, 500);
  const word = statusWord(e);
  // Google refuses a bad key with 400 API_KEY_INVALID: for the client that is the provider refusing this service.
  const effective = keyRefused(e) ? 401 : status;
  const code = CONTEXT.test(message) ? "context_length_exceeded" : word;
  return fromUpstreamStatus(
    effective,
    JSON.stringify({ error: { message, ...(code ? { code } : {}) } }),
    retryAfterSeconds,
    secret,
  );
}
