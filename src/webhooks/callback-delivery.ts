/**
 * One callback attempt: POST the final envelope, 15 s to answer, redirects not followed.
 * Only 2xx delivers; 410 stops for good; `Retry-After` moves the next attempt.
 */
import { checkOutsideUrl, type UrlPolicy } from "../lib/url-policy";
import { signatureHeaders } from "./callback-signing";
import { attemptError, responseExcerpt } from "./send";

/** Delays before attempts 1..8: now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
const TIMEOUT_MS = 15_000;

/** What the delivery log keeps of an attempt. */
export interface AttemptDetail {
  http_status: number | null;
  duration_ms: number;
  location: string | null;
  response_excerpt: string | null;
}

export type AttemptOutcome = (
  | { kind: "delivered" }
  | { kind: "retry"; error: string; retryAfterMs?: number }
  | { kind: "stop"; error: string }
) & { detail?: AttemptDetail };

export interface Attempt {
  url: string;
  messageId: string;
  body: string;
  /** Signing secrets, newest first (two during a rotation's overlap); none: unsigned. */
  secrets?: readonly string[];
  policy: UrlPolicy;
  nowMs: number;
}

function retryAfter(header: string | null, nowMs: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

export async function attemptDelivery(a: Attempt): Promise<AttemptOutcome> {
  const started = Date.now();
  const unanswered = (): AttemptDetail => ({
    http_status: null,
    duration_ms: Date.now() - started,
    location: null,
    response_excerpt: null,
  });
  const verdict = checkOutsideUrl(a.url, a.policy);
  if (!verdict.ok) return { kind: "stop", error: `callback_url ${verdict.reason}`, detail: unanswered() };
  const headers: Record<string, string> = { "Content-Type": "application/json", "User-Agent": "media-gateway-callbacks/1" };
  const timestamp = Math.floor(a.nowMs / 1000);
  if (a.secrets?.length) Object.assign(headers, signatureHeaders(a.secrets, a.messageId, timestamp, a.body));
  else headers["webhook-id"] = a.messageId;
  try {
    const res = await fetch(verdict.url.toString(), {
      method: "POST",
      headers,
      body: a.body,
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const excerpt = await responseExcerpt(res);
    const redirect = res.status >= 300 && res.status < 400;
    const detail: AttemptDetail = {
      http_status: res.status,
      duration_ms: Date.now() - started,
      location: redirect ? res.headers.get("Location") : null,
      response_excerpt: excerpt,
    };
    if (res.status >= 200 && res.status < 300) return { kind: "delivered", detail };
    if (res.status === 410) return { kind: "stop", error: "receiver answered 410 Gone; delivery stopped", detail };
    const after = retryAfter(res.headers.get("Retry-After"), a.nowMs);
    return {
      kind: "retry",
      error: `receiver answered HTTP ${res.status}`,
      ...(after !== undefined ? { retryAfterMs: after } : {}),
      detail,
    };
  } catch (e) {
    const error = await attemptError(e, verdict.url.toString(), TIMEOUT_MS);
    return { kind: "retry", error, detail: unanswered() };
  }
}
