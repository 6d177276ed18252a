/**
 * Whether a call that ended without an answer could have reached the provider: the one rule every
 * adapter's submission follows (through `call`, src/providers/http.ts). A request that certainly
 * never left (`not_sent`: the host name did not resolve, the connection was refused, the TLS
 * handshake failed) is refused like an HTTP error: tried again or moved to the next route. A
 * request that may have been taken (`maybe_sent`: no answer in time, a connection that broke
 * after it was made) is never sent elsewhere, since the job could then run twice: the provider is
 * asked for it, or the task waits for its webhook.
 *
 * The kind of failure is read by src/lib/outbound-cause.ts, the same for every outside call; it
 * tells workerd's ambiguous words apart with a TCP check (a refused connection and one that broke
 * after the request went out both read `Network connection lost.`). Deployed, Cloudflare answers
 * an unreachable origin with its own HTTP statuses (521 refused, 522/523 unreachable, 525/526 TLS,
 * 530 DNS), which are answers (`http_<status>`), not throws.
 */
import { classifyFetchError, type OutboundFailure } from "../lib/outbound-cause";

export type Delivery = OutboundFailure["delivery"];
export type NetworkFailure = OutboundFailure;

/** Reads a fetch to `url` that threw. */
export function networkFailure(e: unknown, url: string | URL): Promise<NetworkFailure> {
  return classifyFetchError(e, url);
}
