/**
 * One HTTP call of an operation of the generated table, with the API's retry rules: a retryable
 * error response (the error object says so; 408/429/5xx without one) is tried again after the
 * server's Retry-After or an exponential backoff with jitter, a bounded number of times; a call
 * that got no response is tried again only when repeating it cannot do the work twice (reads,
 * and creates, whose Idempotency-Key is made once and sent on every attempt).
 */
import { errorObjectOf, MediaApiError, MediaConnectionError } from "./errors.js";
import { OPERATIONS, type OperationId } from "./generated/operations.js";
import type { OperationRow } from "./operation-row.js";
import { backoffDelay, DEFAULT_RETRY, parseRetryAfter, type RetryPolicy, sleep } from "./retry.js";
import { VERSION } from "./version.js";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Where the API answers, e.g. `http://127.0.0.1:8787` (a trailing `/v1` is accepted). */
  baseUrl?: string;
  apiKey?: string;
  fetch?: FetchLike;
  /** Attempts after the first for retryable failures (default 3). */
  maxRetries?: number;
  /** Per attempt: until the response headers (streams and downloads) or the whole body (default 60 s). */
  timeoutMs?: number;
  /** Backoff tuning (first delay, cap, the longest Retry-After waited for). */
  retry?: Partial<Omit<RetryPolicy, "maxRetries">>;
  /** Headers sent on every call. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
}

export interface CallSpec extends RequestOptions {
  path?: Record<string, string | number>;
  query?: Record<string, unknown>;
  /** A JSON body. */
  body?: unknown;
  /** A body sent as is (uploads); a ReadableStream cannot be sent twice, so it is never retried. */
  rawBody?: Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | string;
  contentType?: string;
  idempotencyKey?: string;
  accept?: string;
  /** Statuses other than 2xx that are answers, not errors (304 for conditional reads). */
  okStatuses?: number[];
}

/** Operations whose repetition changes nothing even without an Idempotency-Key. */
const REPEATABLE = new Set(["GET", "HEAD", "DELETE", "PUT", "OPTIONS"]);

export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";

export function normalizeBaseUrl(base: string): string {
  return base.trim().replace(/\/+$/, "").replace(/\/v1$/, "");
}

export class Transport {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  private readonly fetchImpl: FetchLike;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  /** How backoff waits and draws its jitter (tests record the waits instead of sleeping). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void> = sleep;
  random: () => number = Math.random;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
    this.apiKey = options.apiKey;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.policy = { ...DEFAULT_RETRY, ...options.retry, maxRetries: options.maxRetries ?? DEFAULT_RETRY.maxRetries };
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.headers = options.headers ?? {};
  }

  /** An absolute URL for a path or a link the API returned (links are relative without a public base URL). */
  resolve(pathOrUrl: string): string {
    return new URL(pathOrUrl, `${this.baseUrl}/`).href;
  }

  urlFor(row: Pick<OperationRow, "method" | "path">, spec: CallSpec): string {
    const path = row.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const v = spec.path?.[name];
      if (v === undefined || v === "") throw new TypeError(`missing path parameter '${name}' for ${row.method} ${row.path}`);
      return encodeURIComponent(String(v));
    });
    const url = new URL(path, `${this.baseUrl}/`);
    for (const [k, v] of Object.entries(spec.query ?? {})) {
      if (v === undefined || v === null) continue;
      for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
    }
    return url.href;
  }

  /** Calls an operation of the table; resolves with the response (2xx or an `okStatuses` one), unread. */
  call(operationId: OperationId, spec: CallSpec = {}): Promise<Response> {
    const row: OperationRow = OPERATIONS[operationId];
    const idempotencyKey = row.idempotencyKey ? (spec.idempotencyKey ?? crypto.randomUUID()) : spec.idempotencyKey;
    return this.send(row.method, this.urlFor(row, spec), { ...spec, idempotencyKey }, row.auth !== "none");
  }

  /** Calls any URL (signed links need no key: `authenticate` false). */
  async send(method: string, url: string, spec: CallSpec, authenticate: boolean): Promise<Response> {
    const headers = new Headers(this.headers);
    headers.set("Accept", spec.accept ?? "application/json");
    headers.set("User-Agent", `media-gateway-client/${VERSION}`);
    if (authenticate && this.apiKey) headers.set("Authorization", `Bearer ${this.apiKey}`);
    if (spec.idempotencyKey) headers.set("Idempotency-Key", spec.idempotencyKey);
    let body: RequestInit["body"];
    if (spec.body !== undefined) {
      headers.set("Content-Type", "application/json");
      body = JSON.stringify(spec.body);
    } else if (spec.rawBody !== undefined) {
      headers.set("Content-Type", spec.contentType ?? "application/octet-stream");
      body = spec.rawBody as RequestInit["body"];
    }
    for (const [k, v] of Object.entries(spec.headers ?? {})) headers.set(k, v);

    const streamBody = typeof ReadableStream !== "undefined" && spec.rawBody instanceof ReadableStream;
    const maxRetries = streamBody ? 0 : (spec.maxRetries ?? this.policy.maxRetries);
    const repeatable = REPEATABLE.has(method) || !!spec.idempotencyKey;
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;

    for (let attempt = 0; ; attempt++) {
      const attemptAbort = new AbortController();
      const onAbort = () => attemptAbort.abort(spec.signal?.reason);
      spec.signal?.addEventListener("abort", onAbort, { once: true });
      if (spec.signal?.aborted) onAbort();
      const timer = timeoutMs > 0 ? setTimeout(() => attemptAbort.abort(new TimeoutError(timeoutMs)), timeoutMs) : undefined;
      const done = () => {
        clearTimeout(timer);
        spec.signal?.removeEventListener("abort", onAbort);
      };
      let response: Response;
      try {
        response = await this.fetchImpl(url, {
          method,
          headers,
          ...(body !== undefined ? { body } : {}),
          ...(streamBody ? { duplex: "half" } : {}),
          signal: attemptAbort.signal,
        } as RequestInit);
      } catch (cause) {
        done();
        if (spec.signal?.aborted) throw spec.signal.reason;
        const reason =
          cause instanceof TimeoutError || attemptAbort.signal.reason instanceof TimeoutError ? "timed out" : "failed";
        if (repeatable && attempt < maxRetries) {
          await this.sleep(backoffDelay(attempt, this.policy, this.random), spec.signal);
          continue;
        }
        throw new MediaConnectionError(
          `${method} ${url} ${reason}${attempt ? ` after ${attempt + 1} attempts` : ""}: ${describe(cause)}`,
          cause,
        );
      }

      if (response.ok || spec.okStatuses?.includes(response.status)) {
        // A stream or a download is the caller's to read; a JSON answer is read under the attempt's timer.
        if (isStreaming(response)) {
          done();
          return response;
        }
        try {
          return await buffered(response);
        } catch (cause) {
          if (spec.signal?.aborted) throw spec.signal.reason;
          if (repeatable && attempt < maxRetries) {
            await this.sleep(backoffDelay(attempt, this.policy, this.random), spec.signal);
            continue;
          }
          throw new MediaConnectionError(`the answer to ${method} ${url} did not arrive whole: ${describe(cause)}`, cause);
        } finally {
          done();
        }
      }

      let text = "";
      try {
        text = await response.text();
      } catch {
        // the body did not arrive; the status still says what happened
      }
      done();
      const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
      const error = errorObjectOf(response.status, text, response.headers);
      const apiError = new MediaApiError(response.status, error, {
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        headers: response.headers,
      });
      const waitMs = retryAfterMs ?? backoffDelay(attempt, this.policy, this.random);
      if (error.retryable && attempt < maxRetries && waitMs <= this.policy.maxRetryAfterMs) {
        await this.sleep(waitMs, spec.signal);
        continue;
      }
      throw apiError;
    }
  }
}

class TimeoutError extends Error {
  override readonly name = "TimeoutError";
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? `${e.message} (${cause.message})` : e.message;
  }
  return String(e);
}

function isStreaming(response: Response): boolean {
  const type = response.headers.get("content-type") ?? "";
  return !/json|^text\/plain/i.test(type) || /event-stream/i.test(type);
}

/** The response with its body read, so that the attempt's timer covers the whole answer. */
async function buffered(response: Response): Promise<Response> {
  const bytes = await response.arrayBuffer();
  return new Response(response.status === 204 || response.status === 304 ? null : bytes, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
