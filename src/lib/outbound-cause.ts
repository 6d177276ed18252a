/**
 * Why a call to an outside service (a provider, a tenant's bucket, a webhook receiver, a log
 * collector, the email API) got no usable answer, as one of a few kinds that every caller names
 * the same way: in its message, in `details.cause` of an error, and in the `cause` of a logged
 * attempt. docs/errors.md has the table of kinds, words and codes per door.
 *
 * What workerd's fetch throws (1.20261102; test/lib/outbound-cause.test.ts holds it):
 * - host name not resolved, or a TLS handshake that failed: `internal error; reference = <id>`
 *   alike (the cause is in the runtime's log only);
 * - a refused connection, and a connection reset or closed after the request went out:
 *   `Network connection lost.` alike;
 * - the caller's AbortSignal.timeout: a DOMException named `TimeoutError`.
 * Each ambiguous pair is told apart by opening a plain TCP connection to the same host and port
 * (cloudflare:sockets): if it opens, the host resolved and something listens there, so the failure
 * was the TLS handshake (or a connection that broke after it was made); if it does not, the name
 * did not resolve (or nothing listens: refused). Other runtimes and proxies name the cause
 * (ENOTFOUND, ECONNREFUSED, a certificate error): those are read from the message directly.
 */
import { connect } from "cloudflare:sockets";

/** The kinds that are not an HTTP answer; an answer is `http_<status>`. */
export const NETWORK_CAUSES = [
  "dns_failed",
  "connection_refused",
  "tls_failed",
  "timed_out",
  "connection_lost",
  "network_error",
] as const;

export type NetworkCause = (typeof NETWORK_CAUSES)[number];
export type HttpCause = `http_${number}`;
export type OutboundCause = NetworkCause | HttpCause;

export interface OutboundFailure {
  cause: OutboundCause;
  /** The cause in plain words, ending with the kind in parentheses; never a runtime reference. */
  words: string;
  /**
   * `not_sent`: the request certainly never reached the service (it may be sent elsewhere);
   * `maybe_sent`: it may have arrived (a timeout, a connection that broke after it was made).
   */
  delivery: "not_sent" | "maybe_sent";
}

const WORDS: Record<NetworkCause, (host: string) => string> = {
  dns_failed: (host) => `the host name ${host} did not resolve`,
  connection_refused: (host) => `${host} refused the connection`,
  tls_failed: (host) => `the TLS handshake with ${host} failed`,
  timed_out: (host) => `${host} did not answer in time`,
  connection_lost: (host) => `the connection to ${host} broke before an answer`,
  network_error: (host) => `the request to ${host} failed`,
};

const DELIVERY: Record<NetworkCause, OutboundFailure["delivery"]> = {
  dns_failed: "not_sent",
  connection_refused: "not_sent",
  tls_failed: "not_sent",
  timed_out: "maybe_sent",
  connection_lost: "maybe_sent",
  network_error: "maybe_sent",
};

/** Read from the message alone: what Node, proxies and other runtimes say. */
const NAMED: [RegExp, NetworkCause][] = [
  [/ENOTFOUND|EAI_AGAIN|EAI_NONAME|getaddrinfo|lookup address|name or service not known|name resolution|dns/i, "dns_failed"],
  [/ECONNREFUSED|connection refused/i, "connection_refused"],
  [/tls handshake|ssl handshake|certificate|CERT_|self[- ]signed/i, "tls_failed"],
  [/ETIMEDOUT|timed out/i, "timed_out"],
  [/ECONNRESET|socket hang up|connection reset|EPIPE/i, "connection_lost"],
];

/** workerd's words for a connection that could not be set up (see above). */
const WORKERD_SETUP = /^internal error(?:; reference = [a-z0-9]+)?\.?$/i;
const WORKERD_LOST = /network connection lost/i;

/** How long the TCP check that tells an ambiguous pair apart may take. */
const TCP_CHECK_MS = 2_000;

export function hostOf(url: string | URL): string {
  try {
    return new URL(url).host;
  } catch {
    return "the host";
  }
}

function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/** Whether a plain TCP connection to the URL's host and port opens (the host resolves, and something listens). */
export async function tcpOpens(url: URL, timeoutMs = TCP_CHECK_MS): Promise<boolean> {
  let socket: ReturnType<typeof connect> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    socket = connect(
      { hostname: url.hostname.replace(/^\[|\]$/g, ""), port: portOf(url) },
      { secureTransport: "off", allowHalfOpen: false },
    );
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    return await Promise.race([
      socket.opened.then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } catch {
    return false;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    socket?.close().catch(() => {});
  }
}

export function isTimeout(e: unknown): boolean {
  return e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
}

function failure(cause: NetworkCause, host: string): OutboundFailure {
  return { cause, words: `${WORDS[cause](host)} (${cause})`, delivery: DELIVERY[cause] };
}

/** The kind, read from the thrown value alone (no TCP check): null when workerd's words are ambiguous. */
export function namedCause(e: unknown): NetworkCause | null {
  if (isTimeout(e)) return "timed_out";
  const message = (e instanceof Error ? e.message : String(e)).trim();
  for (const [pattern, cause] of NAMED) if (pattern.test(message)) return cause;
  if (WORKERD_SETUP.test(message) || WORKERD_LOST.test(message)) return null;
  return "network_error";
}

/**
 * The kind of a fetch to `url` that threw `e`. Async: workerd's ambiguous words are told apart by
 * a TCP check (at most 2 s), made only after a failure.
 */
export async function classifyFetchError(e: unknown, url: string | URL): Promise<OutboundFailure> {
  const host = hostOf(url);
  const named = namedCause(e);
  if (named) {
    if (named !== "network_error") return failure(named, host);
    const message = (e instanceof Error ? e.message : String(e)).trim();
    // A URL that cannot be fetched at all never left.
    if (e instanceof TypeError && /invalid url|cannot load|unsupported protocol/i.test(message)) {
      return { cause: "network_error", words: `the URL cannot be fetched (network_error)`, delivery: "not_sent" };
    }
    return failure("network_error", host);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return failure("network_error", host);
  }
  const message = e instanceof Error ? e.message : String(e);
  if (WORKERD_SETUP.test(message.trim())) {
    // Over plain HTTP there is no handshake: the name did not resolve.
    if (parsed.protocol !== "https:") return failure("dns_failed", host);
    return failure((await tcpOpens(parsed)) ? "tls_failed" : "dns_failed", host);
  }
  return failure((await tcpOpens(parsed)) ? "connection_lost" : "connection_refused", host);
}

/** A timeout the caller measured itself, worded with its limit. */
export function timedOut(url: string | URL, timeoutMs: number): OutboundFailure {
  const host = hostOf(url);
  return {
    cause: "timed_out",
    words: `${host} did not answer within ${formatSeconds(timeoutMs)} s (timed_out)`,
    delivery: "maybe_sent",
  };
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : String(Math.round(s * 10) / 10);
}

/** The kind of an HTTP answer that is not a success. */
export function httpCause(status: number): HttpCause {
  return `http_${status}`;
}

/** The kind named at the start or the end (in parentheses) of a stored error text, if any. */
export function causeInText(text: string | null | undefined): OutboundCause | null {
  if (!text) return null;
  const m = /\((dns_failed|connection_refused|tls_failed|timed_out|connection_lost|network_error|http_\d{3})\)/.exec(text);
  if (m) return m[1] as OutboundCause;
  const answered = /answered (?:HTTP )?(\d{3})\b/.exec(text);
  return answered ? httpCause(Number(answered[1])) : null;
}

/**
 * The public class of a failure to reach an outside service, the same at every door that raises an
 * error for it (docs/errors.md): not reachable 503 `model_unavailable`, no answer in time 504
 * `model_timeout`, broken off 502 `model_request_failed`; all retryable. An HTTP answer is the
 * door's own (a refusal of what was sent, or the service's own failure).
 */
export function networkErrorCode(cause: NetworkCause): "model_unavailable" | "model_timeout" | "model_request_failed" {
  if (cause === "timed_out") return "model_timeout";
  if (cause === "connection_lost" || cause === "network_error") return "model_request_failed";
  return "model_unavailable";
}

/**
 * The class of an HTTP answer that is not a success, at a door that checks something with the
 * service (a provider key, a bucket): null for a refusal of what was sent (a 4xx other than 408,
 * 425 and 429: the door's own 422, not retryable); otherwise the service's own failure, retryable.
 */
export function httpErrorCode(
  status: number,
): "model_rate_limited" | "model_timeout" | "model_unavailable" | "model_request_failed" | null {
  if (status === 429) return "model_rate_limited";
  if (status === 408 || status === 504 || status === 524) return "model_timeout";
  if (status === 503 || status === 529) return "model_unavailable";
  if (status >= 500 || status === 425) return "model_request_failed";
  return null;
}

/** Whether a cause is a network kind (no HTTP answer). */
export function isNetworkCause(cause: string): cause is NetworkCause {
  return (NETWORK_CAUSES as readonly string[]).includes(cause);
}
