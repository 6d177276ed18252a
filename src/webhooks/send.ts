/**
 * One attempt to deliver an event to an endpoint: POST the body signed per Standard Webhooks
 * (`webhook-id` is the event id, the same on every retry), 15 s to answer, redirects not followed.
 * Only a 2xx succeeds; a 3xx fails and its `Location` is kept for the log.
 */

import { classifyFetchError, isTimeout, timedOut } from "../lib/outbound-cause";
import { headBytes } from "../lib/stream-head";
import { checkOutsideUrl, type UrlPolicy } from "../lib/url-policy";
import { signatureHeaders } from "./callback-signing";

/** A 2xx within this is success; a receiver still silent after it failed the attempt. */
export const TIMEOUT_MS = 15_000;
/** The first 1 KiB of a receiver's answer is kept with the attempt. */
const EXCERPT_BYTES = 1024;

export interface WebhookSend {
  url: string;
  eventId: string;
  body: string;
  /** Newest first; two while a rotation's overlap runs. */
  secrets: readonly string[];
  policy: UrlPolicy;
  nowMs: number;
  /** Tests shorten it; deliveries use TIMEOUT_MS. */
  timeoutMs?: number;
}

export interface SendResult {
  ok: boolean;
  http_status: number | null;
  duration_ms: number;
  /**
   * Why the attempt failed: `receiver answered HTTP <status>…`, or the kind of failure at the end in
   * parentheses (src/lib/outbound-cause.ts reads either back as the attempt's `cause`); null on success.
   */
  error: string | null;
  location: string | null;
  response_excerpt: string | null;
}

/** The words of a failed attempt: the receiver's HTTP answer, or why none came. */
export async function attemptError(e: unknown, url: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const lost = isTimeout(e) || signal?.aborted ? timedOut(url, timeoutMs) : await classifyFetchError(e, url);
  return lost.cause === "timed_out"
    ? `receiver did not answer within ${timeoutMs / 1000} s (timed_out)`
    : `could not connect: ${lost.words}`;
}

/** The answer's first bytes as text, control characters (but tab and newline) removed. */
export async function responseExcerpt(res: Response): Promise<string> {
  const bytes = await headBytes(res, EXCERPT_BYTES);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return new TextDecoder().decode(bytes).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
}

export async function sendWebhook(s: WebhookSend): Promise<SendResult> {
  const started = Date.now();
  const took = () => Date.now() - started;
  const verdict = checkOutsideUrl(s.url, s.policy);
  if (!verdict.ok) {
    return {
      ok: false,
      http_status: null,
      duration_ms: 0,
      error: `url ${verdict.reason}`,
      location: null,
      response_excerpt: null,
    };
  }
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": "media-gateway-webhooks/1",
    ...signatureHeaders(s.secrets, s.eventId, Math.floor(s.nowMs / 1000), s.body),
  };
  const timeoutMs = s.timeoutMs ?? TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(verdict.url.toString(), { method: "POST", headers, body: s.body, redirect: "manual", signal });
    const text = await responseExcerpt(res);
    const ok = res.status >= 200 && res.status < 300;
    const redirect = res.status >= 300 && res.status < 400;
    return {
      ok,
      http_status: res.status,
      duration_ms: took(),
      error: ok
        ? null
        : redirect
          ? `receiver answered HTTP ${res.status} (redirects are not followed)`
          : `receiver answered HTTP ${res.status}`,
      location: redirect ? res.headers.get("Location") : null,
      response_excerpt: text,
    };
  } catch (e) {
    const error = await attemptError(e, verdict.url.toString(), timeoutMs, signal);
    return {
      ok: false,
      http_status: null,
      duration_ms: took(),
      error,
      location: null,
      response_excerpt: null,
    };
  }
}
