/**
 * The one policy for user-supplied outside URLs (callbacks, media inputs): HTTPS only, no
 * credentials, no private, loopback, link-local or metadata addresses in any spelling. Local
 * development may allow http://127.0.0.1 and http://localhost by explicit configuration.
 * Workers cannot resolve names before connecting, so names are checked as written; literal
 * addresses (including numeric and IPv4-mapped spellings) are parsed and checked by range.
 */
export interface UrlPolicy {
  allowLoopback: boolean;
}

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

const BLOCKED_NAMES = [/^localhost$/, /\.localhost$/, /^metadata(\.google)?\.internal$/, /\.internal$/, /\.local$/, /^metadata$/];

function parseIpv4(host: string): number[] | null {
  // WHATWG URL parsing already normalises decimal, octal and hex spellings to dotted quads.
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function ipv4Blocked([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && (b as number) >= 64 && (b as number) <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && (b as number) >= 16 && (b as number) <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    (a as number) >= 224
  );
}

function ipv6Blocked(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "::" || h === "::1") return true;
  if (/^f[cd]/.test(h) || /^fe[89ab]/.test(h) || /^ff/.test(h)) return true;
  // IPv4-mapped or -compatible (::ffff:a.b.c.d, ::ffff:7f00:1, ::a.b.c.d): judge the IPv4 inside.
  const mapped = /^::(ffff:)?(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(h);
  if (mapped) {
    if (mapped[2]) return ipv4Blocked(parseIpv4(mapped[2]) ?? [0]);
    const hi = Number.parseInt(mapped[3] as string, 16);
    return ipv4Blocked([hi >> 8, hi & 255]);
  }
  return h.startsWith("64:ff9b:") || h.startsWith("2001:db8:");
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
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (policy.allowLoopback && isLoopbackName(host) && (url.protocol === "http:" || url.protocol === "https:"))
    return { ok: true, url };
  if (url.protocol !== "https:") return { ok: false, reason: "must use https" };
  if (host.startsWith("[")) {
    if (ipv6Blocked(host)) return { ok: false, reason: "must not target a private, loopback or link-local address" };
    return { ok: true, url };
  }
  const v4 = parseIpv4(host);
  if (v4)
    return ipv4Blocked(v4)
      ? { ok: false, reason: "must not target a private, loopback or link-local address" }
      : { ok: true, url };
  if (/^[\d.]+$/.test(host) || /^0x/i.test(host)) return { ok: false, reason: "is not a valid host" };
  if (BLOCKED_NAMES.some((r) => r.test(host)) || !host.includes(".")) {
    return { ok: false, reason: "must not target a local or internal host name" };
  }
  return { ok: true, url };
}

export function policyFrom(env: { ALLOW_LOOPBACK_URLS?: string }): UrlPolicy {
  return { allowLoopback: env.ALLOW_LOOPBACK_URLS === "true" };
}
