/**
 * Chat completions on the Gemini API: the OpenAI wire format in, `generateContent` (or
 * `streamGenerateContent?alt=sse`) upstream, OpenAI `chat.completion` / `chat.completion.chunk`
 * objects out.
 *
 * The request is built in chat-request.ts, the answer read in chat-answer.ts and chat-stream.ts.
 *
 * Retries happen only before the first byte (429 and 5xx, network errors), honouring Retry-After
 * and Google's RetryInfo; once the upstream has answered, its answer is final.
 */
import { ApiError } from "../../errors/api-error";
import { modelConnectionBroke } from "../../errors/common";
import { sleep } from "../../lib/sleep";
import { timedOut, unreachable } from "../chat-errors";
import type { ChatUpstream, ChatUpstreamRequest, ChatUpstreamResult } from "../chat-upstream";
import { DEFAULT_TIMEOUT_MS, type ProviderConfig } from "../config";
import { retryAfterMs } from "../http";
import { IdleTimeout, readBody, readWithin, sseData } from "../openai-compatible/sse";
import { fromGoogleError, fromGoogleStatus, toCompletion } from "./chat-answer";
import { toGemini } from "./chat-request";
import { chunksOf } from "./chat-stream";
import { modelPath, retryDelayMs, statusOf } from "./client";
import type { Json } from "./gemini-json";

const RETRYABLE = new Set([429, 500, 502, 503, 504]);
const DEFAULTS = { timeoutMs: 120_000, maxRetries: 2, backoffMs: 250, maxRetryAfterMs: 10_000 };

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
      throw await unreachable(e, url);
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
      throw modelConnectionBroke();
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
