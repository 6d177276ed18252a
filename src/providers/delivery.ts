/**
 * Whether a call that ended without an answer could have reached the provider: the one rule every
 * adapter's submission follows (through `call`, src/providers/http.ts). A request that certainly
 * never left (`not_sent`) is refused like an HTTP error: tried again or moved to the next route. A
 * request that may have been taken (`maybe_sent`) is never sent elsewhere, since the job could
 * then run twice: the provider is asked for it, or the task waits for its webhook.
 *
 * What workerd's fetch throws (1.20261102, checked by test/providers/delivery.test.ts):
 * - the host name not resolved, or a TLS handshake that fails (whatever its cause), before any
 *   byte of the request went out: `internal error; reference = <id>` (the cause is in the
 *   runtime's log only);
 * - everything once a connection is up — reset or closed after the request, a broken TLS
 *   session, a garbled answer — and also a refused connection: `Network connection lost.`, so a
 *   refused connection cannot be told from one that broke after the request was sent.
 * Other runtimes (and proxies) name the cause (ENOTFOUND, ECONNREFUSED, a certificate error):
 * those are read too. Deployed, Cloudflare answers an unreachable origin with its own HTTP
 * statuses (521 refused, 522/523 unreachable, 525/526 TLS, 530 DNS), which are answers, not throws.
 */

export type Delivery = "not_sent" | "maybe_sent";

export interface NetworkFailure {
  delivery: Delivery;
  /** The cause in plain words, without the runtime's internal references. */
  cause: string;
}

const NOT_SENT: [RegExp, string][] = [
  [/ENOTFOUND|EAI_AGAIN|EAI_NONAME|getaddrinfo|lookup address|name or service not known|name resolution|dns/i, "host not found"],
  [/ECONNREFUSED|connection refused/i, "connection refused"],
  [/EHOSTUNREACH|ENETUNREACH|(?:host|network) is unreachable/i, "network unreachable"],
  [/tls handshake|ssl handshake|certificate|CERT_|self[- ]signed/i, "TLS handshake failed"],
];

/** workerd's report of a failure while the connection was being set up (see above). */
const WORKERD_SETUP = /^internal error(?:; reference = [a-z0-9]+)?\.?$/i;

/** Reads a fetch that threw (a timeout is the caller's: it may have been sent). */
export function networkFailure(e: unknown): NetworkFailure {
  const message = (e instanceof Error ? e.message : String(e)).trim();
  for (const [pattern, cause] of NOT_SENT) if (pattern.test(message)) return { delivery: "not_sent", cause };
  if (WORKERD_SETUP.test(message)) {
    return { delivery: "not_sent", cause: "no connection could be made (host not found, or the TLS handshake failed)" };
  }
  if (e instanceof TypeError && /invalid url|cannot load|unsupported protocol/i.test(message)) {
    return { delivery: "not_sent", cause: "the URL cannot be fetched" };
  }
  if (/network connection lost/i.test(message)) {
    return { delivery: "maybe_sent", cause: "the connection was refused or broke off before an answer" };
  }
  // Anything else is not known to have stopped before the request went out.
  return { delivery: "maybe_sent", cause: message.replace(/;?\s*reference = [a-z0-9]+/gi, "").slice(0, 200) || "no answer" };
}
