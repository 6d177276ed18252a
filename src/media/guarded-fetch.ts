/**
 * The one fetcher for user-supplied media URLs. The outside-URL policy is applied to the first
 * URL and again to every redirect hop (redirects are followed here, never by the runtime), one
 * deadline covers the whole exchange, and the body is read under a byte cap so an endless or
 * oversized response costs at most `maxBytes` of memory.
 */
import { ApiError } from "../errors/api-error";
import { fromJsonPointer } from "../lib/json-pointer";
import { readAtMost, TooLarge } from "../lib/streams";
import { checkOutsideUrl, type UrlPolicy } from "../lib/url-policy";

export interface GuardedFetchOptions {
  policy: UrlPolicy;
  maxBytes: number;
  /** For the whole exchange, redirects and body included; 15 s unless told. */
  timeoutMs?: number;
  maxRedirects?: number;
  /** JSON Pointer of the URL field, carried by every error. */
  param: string;
}

export interface FetchedMedia {
  bytes: Uint8Array;
  finalUrl: string;
  contentType: string | null;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_REDIRECTS = 5;

/** `/images/0/url` → `["body", "images", 0, "url"]`, the `loc` convention of validation errors. */
function locOf(param: string): (string | number)[] {
  return ["body", ...fromJsonPointer(param)];
}

function refused(param: string, reason: string): ApiError {
  return new ApiError("invalid_request", `The media URL at ${param} ${reason}.`, {
    param,
    details: { errors: [{ loc: locOf(param), reason }] },
  });
}

/**
 * The spec's recovery object for a failed fetch. `media_fetch_failed` is retryable in the error
 * table, but only a transient fault (the network, a timeout, a 5xx, 408, 429) goes away by itself:
 * what the server refused (any other 4xx, a broken redirect chain) needs another URL.
 */
const RETRY = { action: "retry", requires_input_change: false, client_request_id: "same" } as const;
const CHANGE_INPUT = { action: "change_input", requires_input_change: true, client_request_id: "new" } as const;

/** A fault that may clear by itself: the same request (same Idempotency-Key) may be retried. */
function fetchFailed(param: string, why: string, details?: Record<string, unknown>): ApiError {
  return new ApiError(
    "media_fetch_failed",
    `The media at ${param} could not be fetched: ${why}. The same request may be retried with the same Idempotency-Key.`,
    { param, details: { ...details, recovery: RETRY } },
  );
}

/** The URL itself does not lead to the file: the client must send another one (a new request). */
function urlUnusable(param: string, why: string, details?: Record<string, unknown>): ApiError {
  return new ApiError(
    "media_fetch_failed",
    `The media URL at ${param} ${why}. Give a URL that serves the file to anyone without signing in (or send the media as a data URI or an upload), as a new request with a new Idempotency-Key.`,
    { param, details: { ...details, recovery: CHANGE_INPUT } },
  );
}

/** 4xx means the server refused this URL, except the two that say "later". */
function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

function tooLarge(param: string, maxBytes: number): ApiError {
  return new ApiError("media_too_large", `The media at ${param} is larger than ${maxBytes} bytes.`, {
    param,
    details: { max_bytes: maxBytes },
  });
}

function isTimeout(e: unknown): boolean {
  return e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
}

export async function guardedFetch(url: string, opts: GuardedFetchOptions): Promise<FetchedMedia> {
  const { param, maxBytes } = opts;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = () => fetchFailed(param, `no complete answer within ${timeoutMs} ms`);
  let current = url;
  for (let hop = 0; ; hop++) {
    const verdict = checkOutsideUrl(current, opts.policy);
    if (!verdict.ok) throw refused(param, hop === 0 ? verdict.reason : `redirects to a URL that ${verdict.reason}`);
    let res: Response;
    try {
      res = await fetch(verdict.url.toString(), {
        method: "GET",
        redirect: "manual",
        signal,
        headers: { Accept: "image/*, video/*, audio/*, */*;q=0.1", "User-Agent": "media-gateway-fetcher/1" },
      });
    } catch (e) {
      throw isTimeout(e) ? timedOut() : fetchFailed(param, "could not connect");
    }
    if (REDIRECT_STATUSES.has(res.status)) {
      await res.body?.cancel().catch(() => {});
      const location = res.headers.get("Location");
      if (!location) throw urlUnusable(param, `answered HTTP ${res.status} without a Location`, { status: res.status });
      if (hop >= maxRedirects) throw urlUnusable(param, `leads through more than ${maxRedirects} redirects`);
      try {
        current = new URL(location, verdict.url).toString();
      } catch {
        throw urlUnusable(param, "redirects to a Location that is not a valid URL");
      }
      continue;
    }
    if (res.status < 200 || res.status > 299) {
      await res.body?.cancel().catch(() => {});
      throw isTransientStatus(res.status)
        ? fetchFailed(param, `the server answered HTTP ${res.status}`, { status: res.status })
        : urlUnusable(param, `answered HTTP ${res.status}`, { status: res.status });
    }
    const declared = Number(res.headers.get("Content-Length") ?? Number.NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel().catch(() => {});
      throw tooLarge(param, maxBytes);
    }
    const bytes = await readCapped(res, maxBytes, param, timedOut);
    return { bytes, finalUrl: verdict.url.toString(), contentType: res.headers.get("Content-Type") };
  }
}

/** The body, refused as soon as it passes `maxBytes` (the rest is never read). */
async function readCapped(res: Response, maxBytes: number, param: string, timedOut: () => ApiError): Promise<Uint8Array> {
  try {
    return await readAtMost(res.body, maxBytes);
  } catch (e) {
    if (e instanceof TooLarge) throw tooLarge(param, maxBytes);
    throw isTimeout(e) ? timedOut() : fetchFailed(param, "the connection broke while reading the body");
  }
}
