/**
 * The HTTP client every adapter uses: base URL and credentials from the provider's configuration,
 * a timeout per attempt, retries that honour Retry-After, and failures in the public vocabulary
 * (ProviderError) with the provider's wording made safe. An adapter gives `describe` to read its
 * own error bodies (and to recognise its safety refusals); the rest is common.
 */
import type { ErrorCode } from "../errors/codes";
import { httpCause, isTimeout, networkErrorCode, timedOut } from "../lib/outbound-cause";
import type { ProviderConfig } from "./config";
import { networkFailure } from "./delivery";
import { safeProviderMessage } from "./messages";
import { ProviderError } from "./types";

export interface Described {
  message: string;
  /** Overrides the code the status would give (a safety refusal, for one). */
  code?: ErrorCode;
  retryable?: boolean;
  /** The account behind the credential is at fault beyond 401/403 (its quota or credit is exhausted). */
  keyFault?: boolean;
}

export interface CallOptions {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  /** Relative to the configured base URL, or absolute (a status URL the provider returned). */
  path: string;
  headers?: Record<string, string>;
  /** A JSON body (serialised here), or a ready body (FormData, bytes). */
  json?: unknown;
  body?: BodyInit;
  timeoutMs?: number;
  /**
   * Extra attempts after a retryable failure (429, 5xx, timeout, connection error). Only for calls
   * that are safe to repeat: reads and cancels. Submissions use 0 and let the task object decide.
   */
  retries?: number;
  /** The longest Retry-After waited for inside one call; a longer one is returned to the caller. */
  maxWaitMs?: number;
  /** Reads the provider's error body. */
  describe?: (status: number, text: string, headers: Headers) => Described;
  /** Statuses that are answers, not failures (e.g. 404 for "already gone"). */
  accept?: number[];
}

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529]);

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in milliseconds. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.has("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** The code an HTTP failure maps to when the adapter says nothing more specific. */
export function codeForStatus(status: number): { code: ErrorCode; retryable: boolean } {
  if (status === 429) return { code: "model_rate_limited", retryable: true };
  if (status === 408 || status === 504 || status === 524) return { code: "model_timeout", retryable: true };
  if (status === 503 || status === 529) return { code: "model_unavailable", retryable: true };
  if (status >= 500 || RETRYABLE_STATUS.has(status)) return { code: "model_request_failed", retryable: true };
  // 401/403: this deployment's credential was refused; another route (or a fixed key) may serve.
  if (status === 401 || status === 403) return { code: "model_unavailable", retryable: true };
  return { code: "model_request_failed", retryable: false };
}

/** A generic reading of an error body: `{error: {message}}`, `{error: "…"}`, `{detail: …}`, `{message}` or the text. */
export function genericDescribe(_status: number, text: string): Described {
  try {
    const body = JSON.parse(text) as Record<string, any>;
    const e = body.error;
    if (typeof e === "string") return { message: e };
    if (e && typeof e.message === "string") return { message: e.message };
    if (typeof body.detail === "string") return { message: body.detail };
    if (Array.isArray(body.detail)) return { message: body.detail.map((d: any) => d?.msg ?? JSON.stringify(d)).join("; ") };
    if (typeof body.message === "string") return { message: body.message };
  } catch {}
  return { message: text.slice(0, 500) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function url(config: ProviderConfig, path: string): string {
  return /^https?:\/\//.test(path) ? path : `${config.baseUrl}${path.startsWith("/") ? "" : "/"}${path}`;
}

/** One call with its retries. Resolves with a 2xx (or accepted) response; throws ProviderError otherwise. */
export async function call(config: ProviderConfig, auth: Record<string, string>, opts: CallOptions): Promise<Response> {
  const retries = opts.retries ?? 0;
  const maxWait = opts.maxWaitMs ?? 5_000;
  const timeoutMs = opts.timeoutMs ?? config.timeoutMs;
  const headers: Record<string, string> = { ...auth, ...(opts.headers ?? {}) };
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers["Content-Type"] ??= "application/json";
  }
  const secrets = [config.apiKey];
  for (let attempt = 0; ; attempt++) {
    let failure: ProviderError;
    try {
      const res = await fetch(url(config, opts.path), {
        method: opts.method ?? (opts.json !== undefined || opts.body !== undefined ? "POST" : "GET"),
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      if ((res.status >= 200 && res.status < 300) || opts.accept?.includes(res.status)) return res;
      const text = await res.text().catch(() => "");
      const said = (opts.describe ?? genericDescribe)(res.status, text, res.headers);
      const mapped = codeForStatus(res.status);
      const code = said.code ?? mapped.code;
      const retryable = said.retryable ?? (said.code ? false : mapped.retryable);
      failure = new ProviderError(
        code,
        `${config.name} answered ${res.status}: ${safeProviderMessage(said.message || res.statusText, secrets, 600)}`,
        {
          retryable,
          retryAfterMs: retryAfterMs(res.headers),
          accepted: "no",
          status: res.status,
          keyFault: said.keyFault || res.status === 401 || res.status === 403,
          cause: httpCause(res.status),
        },
      );
    } catch (e) {
      if (e instanceof ProviderError) throw e;
      const target = url(config, opts.path);
      // A request that never left is refused like an HTTP error; one that may have gone is not (delivery.ts).
      const lost = isTimeout(e) ? timedOut(target, timeoutMs) : await networkFailure(e, target);
      const sent = lost.delivery === "maybe_sent";
      failure = new ProviderError(
        networkErrorCode(lost.cause as Parameters<typeof networkErrorCode>[0]),
        lost.cause === "timed_out"
          ? `${config.name} did not answer within ${Math.round(timeoutMs / 1000)} s (timed_out).`
          : `${config.name} could not be reached: ${safeProviderMessage(lost.words, secrets, 300)}`,
        { retryable: true, accepted: sent ? "unknown" : "no", cause: lost.cause },
      );
    }
    if (!failure.retryable || attempt >= retries) throw failure;
    const wait = failure.retryAfterMs ?? 250 * 2 ** attempt + Math.floor(Math.random() * 100);
    if (wait > maxWait) throw failure;
    await sleep(wait);
  }
}

/** The JSON body of a response; a body that is not JSON is a malformed answer (retryable: it may be transient). */
export async function readJson<T = any>(config: ProviderConfig, res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProviderError(
      "model_request_failed",
      `${config.name} sent a body that is not JSON: ${safeProviderMessage(text.slice(0, 200), [config.apiKey], 240)}`,
      { retryable: true, status: res.status, malformed: true },
    );
  }
}

/** A malformed answer: a field the documentation promises is missing or of the wrong type. */
export function malformed(config: ProviderConfig, what: string): ProviderError {
  return new ProviderError("model_request_failed", `${config.name} sent a malformed answer: ${what}.`, {
    retryable: true,
    malformed: true,
  });
}

/**
 * A credential checked with one authenticated read (a model list, the account, its credit): resolves
 * when the provider accepts it; throws the provider's refusal (`keyFault` on 401/403) otherwise.
 */
export async function verifyWithRead(
  config: ProviderConfig,
  auth: Record<string, string>,
  path: string,
  describe?: CallOptions["describe"],
): Promise<Response> {
  return call(config, auth, {
    method: "GET",
    path,
    timeoutMs: Math.min(config.timeoutMs, 15_000),
    retries: 1,
    ...(describe ? { describe } : {}),
  });
}
