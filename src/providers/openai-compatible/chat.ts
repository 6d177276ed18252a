/**
 * Adapter for any upstream that speaks the OpenAI chat-completions wire format. Retries happen
 * only before the first byte: a retryable status or a network error, at most `maxRetries` times,
 * waiting as Retry-After says (or an exponential backoff). Once the upstream has answered, its
 * answer is final: a stream that breaks is reported, never replayed.
 */

import { ApiError } from "../../errors/api-error";
import { modelConnectionBroke } from "../../errors/common";
import { sleep } from "../../lib/sleep";
import { fromUpstreamErrorObject, fromUpstreamStatus, timedOut, unreachable } from "../chat-errors";
import {
  type ChatObject,
  type ChatUpstream,
  type ChatUpstreamRequest,
  type ChatUpstreamResult,
  RAW_EVENT,
} from "../chat-upstream";
import type { ProviderConfig } from "../config";
import { DEFAULT_TIMEOUT_MS } from "../config";
import { retryAfterMs } from "../http";
import { IdleTimeout, idleWatch, readBody, readWithin, SseParser } from "./sse";
import { withUsageDetails } from "./usage";
export interface OpenAiCompatibleConfig {
  /** Up to and including the version, e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  apiKey: string;
  /** Longest wait for the response headers, and then between any two pieces of the body. */
  timeoutMs: number;
  maxRetries: number;
  /** First backoff step; doubled per attempt, plus jitter. */
  backoffMs: number;
  /** A Retry-After longer than this is not waited for: the failure goes back to the client with it. */
  maxRetryAfterMs: number;
}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);
const DEFAULTS = { timeoutMs: 120_000, maxRetries: 2, backoffMs: 250, maxRetryAfterMs: 10_000 };

/** The chat upstream of a configured provider that speaks this wire format (openai, openai-compatible, …). */
export function openAiCompatibleChat(config: ProviderConfig, name = config.name): ChatUpstream {
  // A timeout set for the provider is the idle limit; chat's own default allows long generations.
  const timeoutMs = config.timeoutMs === DEFAULT_TIMEOUT_MS ? DEFAULTS.timeoutMs : config.timeoutMs;
  return openAiCompatible({ ...DEFAULTS, baseUrl: config.baseUrl, apiKey: config.apiKey, timeoutMs }, name);
}

/**
 * The chunks of an OpenAI-style event stream: every chunk one read of the body brought, at once,
 * each carrying its own JSON text (RAW_EVENT) for the relay to edit rather than rebuild. One
 * plain iterator over the body's reader, so a read costs one turn, not one per nested generator.
 */
function chunksOf(body: ReadableStream<Uint8Array>, config: OpenAiCompatibleConfig): AsyncIterator<ChatObject[]> {
  const reader = body.getReader();
  const watch = idleWatch(reader, config.timeoutMs);
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let finished = false;
  let closed = false;
  /** A failure found after chunks of the same read: thrown once they have been handed on. */
  let failure: ApiError | null = null;
  const close = (cancel: boolean) => {
    if (closed) return;
    closed = true;
    watch.stop();
    if (cancel) reader.cancel().catch(() => {});
  };
  const end = { done: true as const, value: undefined };
  return {
    async next(): Promise<IteratorResult<ChatObject[]>> {
      for (;;) {
        if (failure) {
          const e = failure;
          failure = null;
          throw e;
        }
        if (closed) return end;
        let read: ReadableStreamReadResult<Uint8Array> | null = null;
        try {
          read = await reader.read();
        } catch {
          // Told apart below: the watch's cancel, or a broken connection.
        }
        if (watch.expired || read === null) {
          close(true);
          if (watch.expired) throw timedOut(config.timeoutMs / 1000);
          throw new ApiError("model_request_failed", "The connection to the model broke while it was streaming.");
        }
        watch.seen();
        const events = parser.push(read.done ? decoder.decode() : decoder.decode(read.value, { stream: true }), read.done);
        const chunks: ChatObject[] = [];
        for (const data of events) {
          if (data === "[DONE]") {
            close(false);
            void readToEnd(reader);
            break;
          }
          let chunk: ChatObject;
          try {
            chunk = JSON.parse(data) as ChatObject;
          } catch {
            failure = new ApiError("model_request_failed", "The model sent a stream event that is not JSON.");
            break;
          }
          if (chunk.error) {
            failure = fromUpstreamErrorObject(chunk.error, config.apiKey);
            break;
          }
          if (!finished && hasFinishReason(chunk.choices)) finished = true;
          const withDetails = withUsageDetails(chunk);
          if (withDetails === chunk) chunk[RAW_EVENT] = data;
          chunks.push(withDetails);
        }
        if (failure) close(true);
        else if (read.done && !closed) {
          close(false);
          // Some servers omit [DONE]; an answer that reached its finish_reason is still whole.
          if (!finished)
            failure = new ApiError("model_request_failed", "The model's stream ended before the answer was finished.");
        }
        // What came before a failure in the same read still reaches the client first.
        if (chunks.length) return { done: false, value: chunks };
      }
    },
    async return(): Promise<IteratorResult<ChatObject[]>> {
      close(true);
      return end;
    },
  };
}

function hasFinishReason(choices: unknown): boolean {
  if (!Array.isArray(choices)) return false;
  for (const c of choices) if (c?.finish_reason) return true;
  return false;
}

/**
 * What may follow a stream's end marker (the body's own end, usually in the same read) is read
 * rather than canceled: a body read to its end leaves the connection free for the next call,
 * where a canceled one closes it. Past a few reads the body is canceled after all.
 */
async function readToEnd(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    for (let i = 0; i < 4; i++) if ((await reader.read()).done) return;
  } catch {
    return;
  }
  reader.cancel().catch(() => {});
}

/** A call's deadline: its signal, and the end of its timer. */
interface Deadline {
  signal: AbortSignal;
  done(): void;
}

export function openAiCompatible(config: OpenAiCompatibleConfig, name = "openai-compatible"): ChatUpstream {
  const url = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`;

  /**
   * One call. Its deadline (one timer) runs on through a whole answer's body, so that the body is
   * read by the runtime in one go with no second timer; `done` ends it once the answer is read.
   */
  async function attempt(req: ChatUpstreamRequest, signal: AbortSignal): Promise<{ res: Response; deadline: Deadline }> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new IdleTimeout()), config.timeoutMs);
    const deadline = { signal: timeout.signal, done: () => clearTimeout(timer) };
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${config.apiKey}`,
          "Content-Type": "application/json",
          Accept: req.stream ? "text/event-stream" : "application/json",
          "X-Request-Id": req.requestId,
        },
        body: JSON.stringify(req.body),
        signal: AbortSignal.any([signal, timeout.signal]),
      });
      return { res, deadline };
    } catch (e) {
      deadline.done();
      if (signal.aborted) throw signal.reason;
      if (timeout.signal.aborted) throw timedOut(config.timeoutMs / 1000);
      throw await unreachable(e, url);
    }
  }

  async function answer(res: Response, req: ChatUpstreamRequest, deadline: Deadline): Promise<ChatUpstreamResult> {
    const type = res.headers.get("content-type") ?? "";
    if (req.stream && res.body && type.includes("text/event-stream")) {
      // A stream is watched for silence instead (chunksOf).
      deadline.done();
      return { stream: true, chunks: chunksOf(res.body, config) };
    }
    let text: string;
    try {
      text = await readBody(res, null);
    } catch {
      if (deadline.signal.aborted) throw timedOut(config.timeoutMs / 1000);
      throw modelConnectionBroke();
    } finally {
      deadline.done();
    }
    let parsed: ChatObject;
    try {
      parsed = withUsageDetails(JSON.parse(text) as ChatObject);
    } catch {
      throw new ApiError("model_request_failed", "The model's answer is not JSON.");
    }
    if (parsed.error) throw fromUpstreamErrorObject(parsed.error, config.apiKey);
    if (!Array.isArray(parsed.choices)) throw new ApiError("model_request_failed", "The model's answer has no choices.");
    if (!req.stream) return { stream: false, completion: parsed };
    // A stream was asked for but a whole completion came back: replay it as one chunk per choice.
    return { stream: true, chunks: asChunks(parsed) };
  }

  return {
    name,
    async complete(req, signal) {
      for (let n = 0; ; n++) {
        let res: Response;
        let deadline: Deadline;
        try {
          ({ res, deadline } = await attempt(req, signal));
        } catch (e) {
          const retryable = e instanceof ApiError && e.code === "model_unavailable";
          if (!retryable || n >= config.maxRetries) throw e;
          await sleep(backoff(n), signal);
          continue;
        }
        if (res.ok) return answer(res, req, deadline);
        deadline.done();
        const wait = retryAfterMs(res.headers);
        const body = await readWithin(res.text(), config.timeoutMs).catch(() => "");
        const giveUp = !RETRYABLE.has(res.status) || n >= config.maxRetries || (wait ?? 0) > config.maxRetryAfterMs;
        if (giveUp) {
          throw fromUpstreamStatus(res.status, body, wait !== undefined ? Math.ceil(wait / 1000) : undefined, config.apiKey);
        }
        await sleep(wait ?? backoff(n), signal);
      }
    },
  };

  function backoff(n: number): number {
    return config.backoffMs * 2 ** n + Math.random() * config.backoffMs;
  }
}

async function* asChunks(completion: ChatObject): AsyncGenerator<ChatObject> {
  for (const choice of completion.choices as ChatObject[]) {
    yield {
      ...completion,
      object: "chat.completion.chunk",
      choices: [{ index: choice.index ?? 0, delta: choice.message ?? {}, finish_reason: choice.finish_reason ?? "stop" }],
      usage: undefined,
    };
  }
  if (completion.usage) yield { ...completion, object: "chat.completion.chunk", choices: [], usage: completion.usage };
}
