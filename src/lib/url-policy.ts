/**
 * The one policy for outside URLs the service connects to on someone's word (callbacks, media
 * inputs, provider output URLs): HTTPS only, no credentials, and only hosts that are public.
 *
 * Literal addresses are classified by ipaddr.js's range table and only global unicast passes, so
 * every spelling that embeds or routes to another address (IPv4-mapped in any form, 6to4, Teredo,
 * NAT64, IPv4-compatible) and every special range (loopback, private, link-local, site-local,
 * discard-only, documentation, CGNAT, multicast, reserved) is refused. Host names are normalised
 * (case, every trailing dot) and refused when they name the local machine or an internal zone.
 *
 * Names that resolve to private addresses cannot be checked here (Workers cannot resolve before
 * connecting); the platform guarantees that a Worker's fetch() reaches only the public internet:
 * RFC 1918, loopback, link-local and other non-routable destinations are not reachable from a
 * deployed Worker (docs/decisions.md, "Outside URLs"). Local development may allow
 * http://127.0.0.1 and http://localhost by explicit configuration.
 */
import ipaddr from "ipaddr.js";

export interface UrlPolicy {
  allowLoopback: boolean;
}

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

/** Zones that name the local machine or are never public (RFC 6761, 6762, 8375, cloud metadata). */
const BLOCKED_ZONES = [
  "localhost",
  "localdomain",
  "internal",
  "local",
  "home.arpa",
  "in-addr.arpa",
  "ip6.arpa",
  "invalid",
  "test",
  "example",
];

function blockedName(host: string): boolean {
  return host === "metadata" || BLOCKED_ZONES.some((zone) => host === zone || host.endsWith(`.${zone}`));
}

const PRIVATE = "must not target a private, loopback, link-local or otherwise non-public address";

/** Case folded and every trailing dot removed: `LOCALHOST..` is `localhost`. */
export function normaliseHost(hostname: string): string {
  return hostname.toLowerCase().replace(/\.+$/, "");
}

/** Whether a literal address (IPv4, or IPv6 without brackets) is global unicast. */
export function isPublicAddress(literal: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(literal);
  } catch {
    return false;
  }
  if (addr.range() !== "unicast") return false;
  if (addr.kind() === "ipv6") {
    // ::/96 (IPv4-compatible, deprecated) is "unicast" to the table but embeds an IPv4 address.
    const parts = (addr as ipaddr.IPv6).parts;
    if (parts.slice(0, 6).every((p) => p === 0)) return false;
  }
  return true;
}

function isLoopbackName(host: string): boolean {
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}

export function checkOutsideUrl(raw: string, policy: UrlPolicy): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "is not a valid absolute URL" };
  }
  if (url.username || url.password) return { ok: false, reason: "must not carry credentials" };
  const host = normaliseHost(url.hostname);
  if (policy.allowLoopback && isLoopbackName(host) && (url.protocol === "http:" || url.protocol === "https:"))
    return { ok: true, url };
  if (url.protocol !== "https:") return { ok: false, reason: "must use https" };
  if (host.startsWith("[")) return isPublicAddress(host.slice(1, -1)) ? { ok: true, url } : { ok: false, reason: PRIVATE };
  // WHATWG URL parsing has already turned decimal, octal and hex IPv4 spellings into dotted quads.
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return isPublicAddress(host) ? { ok: true, url } : { ok: false, reason: PRIVATE };
  if (/^[\d.]+$/.test(host) || /^0x/i.test(host)) return { ok: false, reason: "is not a valid host" };
  if (!host.includes(".") || blockedName(host)) {
    return { ok: false, reason: "must not target a local or internal host name" };
  }
  return { ok: true, url };
}

/**
 * Whether `raw` is an http(s) URL of this machine that the policy lets through (local development
 * only). Such a URL also passes a card's `https_only`: that rule protects inputs crossing the
 * internet, and a loopback URL never leaves the machine.
 */
export function isAllowedLoopback(raw: string, policy: UrlPolicy): boolean {
  if (!policy.allowLoopback) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackName(normaliseHost(url.hostname));
}

export function policyFrom(env: { ALLOW_LOOPBACK_URLS?: string }): UrlPolicy {
  return { allowLoopback: env.ALLOW_LOOPBACK_URLS === "true" };
}
