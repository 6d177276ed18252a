/**
 * Chat completions on the Gemini API: the OpenAI wire format in, `generateContent` (or
 * `streamGenerateContent?alt=sse`) upstream, OpenAI `chat.completion` / `chat.completion.chunk`
 * objects out.
 *
 * Request: system and developer messages → `systemInstruction`; user → role "user" (text, images
 * as `inlineData` from data URIs or `fileData` for URLs); assistant → role "model" (text and
 * `functionCall` parts); tool → a `functionResponse` part (role "user") named after the call it
 * answers. Tools → `functionDeclarations` (their JSON Schema as `parametersJsonSchema`),
 * tool_choice → `toolConfig.functionCallingConfig` (AUTO / NONE / ANY with allowed names),
 * response_format → `responseMimeType` (+ `responseJsonSchema`), sampling and stop fields →
 * `generationConfig`, reasoning_effort → `thinkingConfig.thinkingLevel`. `maxOutputTokens` is the
 * budget the service reserved for.
 *
 * Gemini 3 models sign their function calls (`thoughtSignature`) and refuse a history whose calls
 * lost the signature. Each returned tool call carries it as `extra_content.google.thought_signature`
 * (as Google's own OpenAI-compatible endpoint does) and it is put back when the client echoes the
 * call; a call without one (a history from elsewhere) gets Google's documented
 * `skip_thought_signature_validator` on the first call of its turn.
 *
 * Answer: text parts (never `thought` parts) → content; `functionCall` parts → tool_calls;
 * finishReason STOP → stop (tool_calls when the model called a function), MAX_TOKENS → length, the
 * safety family (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_*) → content_filter,
 * anything else → stop. A prompt blocked outright (`promptFeedback.blockReason`, no candidates) is
 * `safety_rejected`. Usage: prompt_tokens = promptTokenCount + toolUsePromptTokenCount (cached
 * tokens are inside it, reported as prompt_tokens_details.cached_tokens = cachedContentTokenCount);
 * completion_tokens = candidatesTokenCount + thoughtsTokenCount, with the thoughts as
 * completion_tokens_details.reasoning_tokens — OpenAI's convention, so nothing is billed twice.
 *
 * Retries happen only before the first byte (429 and 5xx, network errors), honouring Retry-After
 * and Google's RetryInfo; once the upstream has answered, its answer is final.
 */

import { ApiError } from "../../errors/api-error";
import { sleep } from "../../lib/sleep";
import { fromUpstreamStatus, safeMessage, timedOut, unreachable } from "../chat-errors";
import type { ChatObject, ChatUpstream, ChatUpstreamRequest, ChatUpstreamResult } from "../chat-upstream";
import { DEFAULT_TIMEOUT_MS, type ProviderConfig } from "../config";
import { retryAfterMs } from "../http";
import { IdleTimeout, readBody, readWithin, sseData } from "../openai-compatible/sse";
import { keyRefused, modelPath, retryDelayMs, statusOf, statusWord } from "./client";
import { SAFETY_FINISH } from "./content";

export const SKIP_SIGNATURE = "skip_thought_signature_validator";

const RETRYABLE = new Set([429, 500, 502, 503, 504]);
const DEFAULTS = { timeoutMs: 120_000, maxRetries: 2, backoffMs: 250, maxRetryAfterMs: 10_000 };

type Json = Record<string, any>;

// ---------------------------------------------------------------- request

function invalid(message: string, param: string): ApiError {
  return new ApiError("invalid_request", message, { param });
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p: Json) =>
      p?.type === "text" && typeof p.text === "string" ? p.text : p?.type === "refusal" ? (p.refusal ?? "") : "",
    )
    .join("");
}

const EXT_MIME: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  heif: "image/heif",
};

function imagePart(url: string, param: string): Json {
  const data = /^data:([^;,]+)((?:;[^;,]*)*?);base64,(.*)$/s.exec(url);
  if (data) return { inlineData: { mimeType: data[1], data: (data[3] as string).replace(/\s+/g, "") } };
  if (!/^https?:\/\//i.test(url)) throw invalid("An image_url must be an https URL or a base64 data URI.", param);
  // Google fetches external URLs itself; the type is told when the name says it.
  const ext = /\.([a-z0-9]{3,4})(?:$|[?#])/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  const mimeType = ext ? EXT_MIME[ext] : undefined;
  return { fileData: { fileUri: url, ...(mimeType ? { mimeType } : {}) } };
}

function userParts(content: unknown, param: string): Json[] {
  if (typeof content === "string") return [{ text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((p: Json, j: number) => {
    if (p?.type === "text" && typeof p.text === "string") return [{ text: p.text }];
    if (p?.type === "image_url" && typeof p.image_url?.url === "string")
      return [imagePart(p.image_url.url, `${param}/${j}/image_url/url`)];
    return [];
  });
}

function argsOf(raw: unknown, param: string): Json {
  if (raw === undefined || raw === null || raw === "") return {};
  try {
    const parsed = JSON.parse(String(raw)) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Json;
  } catch {}
  throw invalid("Tool call arguments must be a JSON object.", param);
}

/** A tool result as Gemini's functionResponse.response: a JSON object as sent, anything else under `output`. */
function responseOf(text: string): Json {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Json;
  } catch {}
  return { output: text };
}

function signatureOf(call: Json): string | undefined {
  const s = call?.extra_content?.google?.thought_signature;
  return typeof s === "string" && s.length > 0 ? s : undefined;
}

const REASONING: Record<string, string> = { minimal: "minimal", low: "low", medium: "medium", high: "high" };

/** The client's OpenAI body as a generateContent request. */
export function toGemini(body: Json, maxCompletionTokens: number): Json {
  const messages: Json[] = Array.isArray(body.messages) ? body.messages : [];
  const system: string[] = [];
  const contents: Json[] = [];
  const callNames = new Map<string, string>();
  const push = (role: "user" | "model", parts: Json[]) => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((m, i) => {
    const param = `/messages/${i}`;
    switch (m?.role) {
      case "system":
      case "developer":
        system.push(textOf(m.content));
        break;
      case "user":
        push("user", userParts(m.content, `${param}/content`));
        break;
      case "assistant": {
        const parts: Json[] = [];
        const text = textOf(m.content) || (typeof m.refusal === "string" ? m.refusal : "");
        if (text) parts.push({ text });
        const calls: Json[] = Array.isArray(m.tool_calls) ? m.tool_calls : [];
        calls.forEach((call, j) => {
          const name = String(call?.function?.name ?? "");
          if (typeof call?.id === "string") callNames.set(call.id, name);
          const signature = signatureOf(call) ?? (j === 0 ? SKIP_SIGNATURE : undefined);
          parts.push({
            functionCall: { name, args: argsOf(call?.function?.arguments, `${param}/tool_calls/${j}/function/arguments`) },
            ...(signature ? { thoughtSignature: signature } : {}),
          });
        });
        push("model", parts);
        break;
      }
      case "tool": {
        const name = callNames.get(String(m.tool_call_id));
        if (!name)
          throw invalid(
            `No earlier assistant tool call has the id '${String(m.tool_call_id).slice(0, 64)}'.`,
            `${param}/tool_call_id`,
          );
        push("user", [{ functionResponse: { name, response: responseOf(textOf(m.content)) } }]);
        break;
      }
      default:
        break;
    }
  });

  const generationConfig: Json = { maxOutputTokens: maxCompletionTokens };
  if (typeof body.temperature === "number") generationConfig.temperature = body.temperature;
  if (typeof body.top_p === "number") generationConfig.topP = body.top_p;
  if (typeof body.seed === "number") generationConfig.seed = body.seed;
  if (typeof body.n === "number" && body.n > 1) generationConfig.candidateCount = body.n;
  if (typeof body.presence_penalty === "number") generationConfig.presencePenalty = body.presence_penalty;
  if (typeof body.frequency_penalty === "number") generationConfig.frequencyPenalty = body.frequency_penalty;
  const stop = typeof body.stop === "string" ? [body.stop] : Array.isArray(body.stop) ? body.stop : [];
  if (stop.length > 0) generationConfig.stopSequences = stop;
  const format = body.response_format;
  if (format?.type === "json_object") generationConfig.responseMimeType = "application/json";
  if (format?.type === "json_schema") {
    generationConfig.responseMimeType = "application/json";
    if (format.json_schema?.schema) generationConfig.responseJsonSchema = format.json_schema.schema;
  }
  const level = typeof body.reasoning_effort === "string" ? REASONING[body.reasoning_effort] : undefined;
  if (level) generationConfig.thinkingConfig = { thinkingLevel: level };

  const out: Json = { contents, generationConfig };
  const instruction = system.filter((s) => s.length > 0).join("\n\n");
  if (instruction) out.systemInstruction = { parts: [{ text: instruction }] };
  const tools: Json[] = Array.isArray(body.tools) ? body.tools : [];
  if (tools.length > 0) {
    out.tools = [
      {
        functionDeclarations: tools.map((t) => ({
          name: t.function?.name,
          ...(typeof t.function?.description === "string" ? { description: t.function.description } : {}),
          ...(t.function?.parameters ? { parametersJsonSchema: t.function.parameters } : {}),
        })),
      },
    ];
  }
  const choice = body.tool_choice;
  if (choice !== undefined && tools.length > 0) {
    const config =
      choice === "none"
        ? { mode: "NONE" }
        : choice === "required"
          ? { mode: "ANY" }
          : typeof choice === "object" && choice?.function?.name
            ? { mode: "ANY", allowedFunctionNames: [choice.function.name] }
            : { mode: "AUTO" };
    out.toolConfig = { functionCallingConfig: config };
  }
  return out;
}

// ---------------------------------------------------------------- answer

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

function toolCall(part: Json): Json {
  const fc = part.functionCall ?? {};
  const signature = typeof part.thoughtSignature === "string" && part.thoughtSignature ? part.thoughtSignature : undefined;
  return {
    id: typeof fc.id === "string" && fc.id ? fc.id : callId(),
    type: "function",
    function: { name: String(fc.name ?? ""), arguments: JSON.stringify(fc.args ?? {}) },
    ...(signature ? { extra_content: { google: { thought_signature: signature } } } : {}),
  };
}

function partsOf(candidate: Json | undefined): Json[] {
  const parts = candidate?.content?.parts;
  return Array.isArray(parts) ? parts.filter((p) => p && typeof p === "object") : [];
}

function blocked(answer: Json): ApiError | null {
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

function chatId(answer: Json): string {
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

// ---------------------------------------------------------------- streaming

interface CandidateState {
  started: boolean;
  calls: number;
  finished: boolean;
}

async function* chunksOf(
  events: AsyncIterable<string> | Iterable<string>,
  model: string,
  timeoutSeconds: number,
  secret: string,
): AsyncGenerator<ChatObject> {
  const states = new Map<number, CandidateState>();
  let usage: Json | undefined;
  let id: string | undefined;
  const created = Math.floor(Date.now() / 1000);
  try {
    for await (const data of events) {
      let event: Json;
      try {
        event = JSON.parse(data) as Json;
      } catch {
        throw new ApiError("model_request_failed", "The model sent a stream event that is not JSON.");
      }
      if (event?.error) throw fromGoogleError(event.error, secret);
      const refused = blocked(event);
      if (refused) throw refused;
      id ??= chatId(event);
      if (event.usageMetadata) usage = event.usageMetadata;
      const candidates: Json[] = Array.isArray(event.candidates) ? event.candidates : [];
      for (const [i, c] of candidates.entries()) {
        const index = typeof c.index === "number" ? c.index : i;
        const state = states.get(index) ?? { started: false, calls: 0, finished: false };
        states.set(index, state);
        const parts = partsOf(c).filter((p) => p.thought !== true);
        const text = parts.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
        const calls = parts.filter((p) => p.functionCall && typeof p.functionCall === "object");
        const delta: Json = {};
        if (!state.started) delta.role = "assistant";
        if (text) delta.content = text;
        if (calls.length > 0) {
          delta.tool_calls = calls.map((p) => ({ index: state.calls++, ...toolCall(p) }));
        }
        const finish = finishReasonOf(c.finishReason, state.calls > 0);
        if (text || calls.length > 0 || (!state.started && finish)) {
          state.started = true;
          yield {
            id,
            object: "chat.completion.chunk",
            created,
            model,
            choices: [{ index, delta, logprobs: null, finish_reason: null }],
          };
        }
        if (finish && !state.finished) {
          state.finished = true;
          // A content_filter finish is forwarded: the relay turns it into content_filtered.
          yield {
            id,
            object: "chat.completion.chunk",
            created,
            model,
            choices: [{ index, delta: {}, logprobs: null, finish_reason: finish }],
          };
        }
      }
    }
  } catch (e) {
    if (e instanceof IdleTimeout) throw timedOut(timeoutSeconds);
    if (e instanceof ApiError) throw e;
    throw new ApiError("model_request_failed", "The connection to the model broke while it was streaming.");
  }
  if (states.size === 0 || [...states.values()].some((s) => !s.finished)) {
    throw new ApiError("model_request_failed", "The model's stream ended before the answer was finished.");
  }
  // Without Google's count the relay estimates from what was delivered.
  if (usage) yield { id, object: "chat.completion.chunk", created, model, choices: [], usage: usageOf(usage) };
}

// ---------------------------------------------------------------- the upstream

export function googleChat(config: ProviderConfig): ChatUpstream {
  // A timeout set for the provider is the idle limit; chat's own default allows long generations.
  const timeoutMs = config.timeoutMs === DEFAULT_TIMEOUT_MS ? DEFAULTS.timeoutMs : config.timeoutMs;
  const secret = config.apiKey;
  const backoff = (n: number) => DEFAULTS.backoffMs * 2 ** n + Math.random() * DEFAULTS.backoffMs;

  async function attempt(url: string, payload: string, stream: boolean, signal: AbortSignal): Promise<Response> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new IdleTimeout()), timeoutMs);
    try {
      return await fetch(url, {
        method: "POST",
        headers: {
          "x-goog-api-key": config.apiKey,
          "Content-Type": "application/json",
          Accept: stream ? "text/event-stream" : "application/json",
        },
        body: payload,
        signal: AbortSignal.any([signal, timeout.signal]),
      });
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (timeout.signal.aborted) throw timedOut(timeoutMs / 1000);
      throw unreachable(e);
    } finally {
      clearTimeout(timer);
    }
  }

  async function answer(res: Response, req: ChatUpstreamRequest, model: string): Promise<ChatUpstreamResult> {
    const type = res.headers.get("content-type") ?? "";
    if (req.stream && res.body && type.includes("text/event-stream")) {
      return { stream: true, chunks: chunksOf(sseData(res.body, timeoutMs), model, timeoutMs / 1000, secret) };
    }
    let text: string;
    try {
      text = await readBody(res, timeoutMs);
    } catch (e) {
      if (e instanceof IdleTimeout) throw timedOut(timeoutMs / 1000);
      throw new ApiError("model_request_failed", "The connection to the model broke while it was answering.");
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError("model_request_failed", "The model's answer is not JSON.");
    }
    if (req.stream) {
      // A stream was asked for but JSON came back (the array form of streamGenerateContent, or one answer).
      const events = (Array.isArray(parsed) ? parsed : [parsed]).map((e) => JSON.stringify(e));
      return { stream: true, chunks: chunksOf(events, model, timeoutMs / 1000, secret) };
    }
    const body = parsed as Json;
    if (body?.error) throw fromGoogleError(body.error, secret);
    return { stream: false, completion: toCompletion(body, model) };
  }

  return {
    name: config.name,
    async complete(req, signal) {
      const model = String(req.body.model ?? "");
      const payload = JSON.stringify(toGemini(req.body, req.maxCompletionTokens));
      const base = `${config.baseUrl}${modelPath(model)}`;
      const url = req.stream ? `${base}:streamGenerateContent?alt=sse` : `${base}:generateContent`;
      for (let n = 0; ; n++) {
        let res: Response;
        try {
          res = await attempt(url, payload, req.stream, signal);
        } catch (e) {
          const retryable = e instanceof ApiError && e.code === "model_unavailable";
          if (!retryable || n >= DEFAULTS.maxRetries) throw e;
          await sleep(backoff(n), signal);
          continue;
        }
        if (res.ok) return answer(res, req, model);
        const body = await readWithin(res.text(), timeoutMs).catch(() => "");
        const wait = retryAfterMs(res.headers) ?? retryDelayMs(statusOf(body));
        const giveUp = !RETRYABLE.has(res.status) || n >= DEFAULTS.maxRetries || (wait ?? 0) > DEFAULTS.maxRetryAfterMs;
        if (giveUp) throw fromGoogleStatus(res.status, body, wait !== undefined ? Math.ceil(wait / 1000) : undefined, secret);
        await sleep(wait ?? backoff(n), signal);
      }
    },
  };
}
