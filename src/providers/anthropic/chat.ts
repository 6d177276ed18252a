/**
 * Chat completions answered by Anthropic's Messages API. The request is translated (request.ts),
 * always sent with `stream: true`, and the events translated back (events.ts): a streamed chat
 * relays them as they come; a non-streamed one is assembled from them. Streaming the upstream call
 * in both cases follows Anthropic's advice for long requests (the official SDK refuses
 * non-streamed calls that may outlast ten minutes), and keeps the idle timeout meaningful: a
 * stream sends `ping` events while the model works, a non-streamed answer sends nothing until done.
 *
 * Retries happen only before the first byte the client could see: a retryable status (429, 5xx,
 * 529), a connection failure, or an `error` event before message_start, at most `maxRetries`
 * times, waiting as retry-after says (or an exponential backoff). A retry-after longer than
 * `maxRetryAfterMs` is not waited for: the failure goes back with it.
 */

import { ApiError } from "../../errors/api-error";
import { modelConnectionBroke } from "../../errors/common";
import { sleep } from "../../lib/sleep";
import { timedOut, unreachable } from "../chat-errors";
import type { ChatObject, ChatUpstream, ChatUpstreamRequest, ChatUpstreamResult } from "../chat-upstream";
import { DEFAULT_TIMEOUT_MS, type ProviderConfig } from "../config";
import { retryAfterMs } from "../http";
import { IdleTimeout, readWithin, sseData } from "../openai-compatible/sse";
import { authHeaders, chatFailure, errorObject, MESSAGES_PATH, streamFailure } from "./client";
import { ChunkTranslator, eventsOfMessage, MalformedStream, malformed } from "./events";
import { messagesRequest } from "./request";
export interface AnthropicChatOptions {
  /** Longest wait for the response headers, and then between any two pieces of the body. */
  timeoutMs: number;
  maxRetries: number;
  /** First backoff step; doubled per attempt, plus jitter. */
  backoffMs: number;
  maxRetryAfterMs: number;
}

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504, 529]);
/** Error types an `error` event may carry that a fresh attempt can cure. */
const RETRYABLE_TYPES = new Set(["overloaded_error", "api_error", "rate_limit_error", "timeout_error"]);
const DEFAULTS: AnthropicChatOptions = { timeoutMs: 120_000, maxRetries: 2, backoffMs: 250, maxRetryAfterMs: 10_000 };

/** A failed attempt that may be tried again (before the first byte only). */
class Retryable extends Error {
  constructor(
    readonly failure: ApiError,
    readonly waitMs?: number,
  ) {
    super(failure.message);
  }
}

/** The events of a stream body as parsed objects; transport failures in the public vocabulary. */
async function* eventsOf(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<Record<string, any>> {
  try {
    for await (const data of sseData(body, idleMs)) {
      let event: Record<string, any>;
      try {
        event = JSON.parse(data) as Record<string, any>;
      } catch {
        throw malformed("an event that is not JSON");
      }
      yield event;
    }
  } catch (e) {
    if (e instanceof IdleTimeout) throw timedOut(idleMs / 1000);
    if (e instanceof ApiError) throw e;
    throw modelConnectionBroke();
  }
}

export function anthropicChat(config: ProviderConfig, options: Partial<AnthropicChatOptions> = {}): ChatUpstream {
  // A timeout set for the provider is the idle limit; chat's own default allows long generations.
  const timeoutMs = config.timeoutMs === DEFAULT_TIMEOUT_MS ? DEFAULTS.timeoutMs : config.timeoutMs;
  const o: AnthropicChatOptions = { ...DEFAULTS, timeoutMs, ...options };
  const url = `${config.baseUrl}${MESSAGES_PATH}`;
  const backoff = (n: number) => o.backoffMs * 2 ** n + Math.random() * o.backoffMs;

  async function send(body: Record<string, unknown>, req: ChatUpstreamRequest, signal: AbortSignal): Promise<Response> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new IdleTimeout()), o.timeoutMs);
    try {
      return await fetch(url, {
        method: "POST",
        headers: {
          ...authHeaders(config),
          "Content-Type": "application/json",
          Accept: "text/event-stream",
          "X-Request-Id": req.requestId,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, timeout.signal]),
      });
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (timeout.signal.aborted) throw new Retryable(timedOut(o.timeoutMs / 1000));
      throw new Retryable(await unreachable(e, url));
    } finally {
      clearTimeout(timer);
    }
  }

  /** A non-2xx answer: a Retryable when another attempt may help, the final ApiError otherwise. */
  async function refused(res: Response): Promise<Error> {
    const wait = retryAfterMs(res.headers);
    const text = await readWithin(res.text(), o.timeoutMs).catch(() => "");
    const failure = chatFailure(res.status, text, wait !== undefined ? Math.ceil(wait / 1000) : undefined, config.apiKey);
    const advice = res.headers.get("x-should-retry");
    const retryable = advice === "true" || (advice !== "false" && RETRYABLE_STATUS.has(res.status));
    if (!retryable || (wait ?? 0) > o.maxRetryAfterMs) return failure;
    return new Retryable(failure, wait);
  }

  /**
   * Reads up to the first chunk (message_start). An `error` event or a broken stream before it
   * has shown the client nothing, so it counts as a failed attempt.
   */
  async function open(res: Response, model: string) {
    const translator = new ChunkTranslator(model, config.apiKey);
    const type = res.headers.get("content-type") ?? "";
    if (!res.body || !type.includes("text/event-stream")) {
      // A whole Message (or an error object) where a stream was asked for: read it as the events it stands for.
      const text = await readWithin(res.text(), o.timeoutMs).catch(() => {
        throw new Retryable(modelConnectionBroke());
      });
      let body: Record<string, any>;
      try {
        body = JSON.parse(text);
      } catch {
        throw malformed("an answer that is neither an event stream nor JSON");
      }
      if (body?.type === "error") throw earlyError(body);
      if (body?.type !== "message") throw malformed("an answer that is not a Message");
      const first = eventsOfMessage(body).flatMap((e) => translator.push(e));
      return { translator, first, events: (async function* () {})() };
    }
    const events = eventsOf(res.body, o.timeoutMs);
    let first: ChatObject[] = [];
    try {
      while (first.length === 0) {
        let next: IteratorResult<Record<string, any>>;
        try {
          next = await events.next();
        } catch (e) {
          // A connection that broke or went silent before the answer began showed the client nothing.
          throw e instanceof ApiError && !(e instanceof MalformedStream) ? new Retryable(e) : e;
        }
        if (next.done) throw new Retryable(new ApiError("model_request_failed", "The model's stream ended before it began."));
        if (next.value?.type === "error") throw earlyError(next.value);
        first = translator.push(next.value);
      }
    } catch (e) {
      await events.return(undefined);
      throw e;
    }
    return { translator, first, events };
  }

  function earlyError(body: Record<string, any>): Error {
    const failure = streamFailure(body, config.apiKey);
    return RETRYABLE_TYPES.has(errorObject(body).type ?? "") ? new Retryable(failure) : failure;
  }

  async function* relay(opened: Awaited<ReturnType<typeof open>>): AsyncGenerator<ChatObject> {
    const { translator, first, events } = opened;
    try {
      yield* first;
      if (translator.done) return;
      for await (const event of events) {
        yield* translator.push(event);
        if (translator.done) return;
      }
      throw new ApiError("model_request_failed", "The model's stream ended before the answer was finished.");
    } finally {
      // Stopping early (client gone, error) releases the upstream connection.
      await events.return(undefined);
    }
  }

  return {
    name: config.name,
    async complete(req: ChatUpstreamRequest, signal: AbortSignal): Promise<ChatUpstreamResult> {
      const body = messagesRequest(req.body, req.maxCompletionTokens);
      const model = String(body.model);
      for (let n = 0; ; n++) {
        try {
          const res = await send(body, req, signal);
          if (!res.ok) throw await refused(res);
          const opened = await open(res, model);
          if (req.stream) return { stream: true, chunks: relay(opened) };
          for await (const _ of relay(opened)) {
            // The chunks only drive the translator; the completion is read from it whole.
          }
          return { stream: false, completion: opened.translator.completion() };
        } catch (e) {
          if (!(e instanceof Retryable)) throw e;
          if (n >= o.maxRetries || signal.aborted) throw e.failure;
          await sleep(e.waitMs ?? backoff(n), signal);
        }
      }
    },
  };
}
