/**
 * Redirect URIs a client may register and be sent back to: https anywhere, or plain http to the
 * person's own machine (RFC 8252 §7.3, OAuth 2.1 §8.4.2: native apps listen on a loopback port).
 * No fragments, no credentials. A loopback URI matches on any port (the app picks one at run time);
 * everything else must match exactly, character for character.
 */

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

function isLoopback(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
}

/** Why `raw` cannot be a redirect URI, or null when it can. */
export function redirectUriProblem(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length === 0) return "must be a non-empty string";
  if (raw.length > 2000) return "must be at most 2000 characters";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.hash || raw.includes("#")) return "must not contain a fragment";
  if (url.username || url.password) return "must not contain credentials";
  if (url.protocol === "https:") return null;
  if (isLoopback(url)) return null;
  return "must use https (or http on a loopback address: 127.0.0.1, [::1], localhost)";
}

/** Whether the requested `redirect_uri` is one of the registered ones (loopback: any port). */
export function matchesRegistered(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return false;
  }
  if (!isLoopback(asked) || asked.hash) return false;
  return registered.some((r) => {
    let reg: URL;
    try {
      reg = new URL(r);
    } catch {
      return false;
    }
    return (
      isLoopback(reg) &&
      reg.hostname.toLowerCase() === asked.hostname.toLowerCase() &&
      reg.pathname === asked.pathname &&
      reg.search === asked.search
    );
  });
}
