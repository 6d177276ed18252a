/**
 * `Prefer: wait=N` (RFC 7240 §4.3) on task reads and creates: answer once the task is terminal or
 * after N seconds, whichever comes first. N is delta-seconds; larger than MAX_WAIT_SECONDS is
 * taken as MAX_WAIT_SECONDS (and `Preference-Applied` says so). As the RFC asks, a preference is
 * read from its first instance only, and one that cannot be understood is ignored.
 */

/** The longest a request is held (well within what proxies allow an idle response). */
export const MAX_WAIT_SECONDS = 60;

/** Seconds to wait as applied (0 to MAX_WAIT_SECONDS), or null when no usable `wait` was asked for. */
export function preferredWait(header: string | undefined): number | null {
  if (!header) return null;
  for (const preference of splitOutsideQuotes(header, ",")) {
    const [head = ""] = splitOutsideQuotes(preference, ";");
    const eq = head.indexOf("=");
    const name = (eq < 0 ? head : head.slice(0, eq)).trim().toLowerCase();
    if (name !== "wait") continue;
    let value = eq < 0 ? "" : head.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    // Only the first `wait` counts, understood or not.
    return /^\d+$/.test(value) ? Math.min(MAX_WAIT_SECONDS, Number(value)) : null;
  }
  return null;
}

/** The headers that tell a client its `wait` was honoured, and caches that the answer depends on it. */
export function waitHeaders(wait: number | null): Record<string, string> {
  return wait === null ? {} : { "Preference-Applied": `wait=${wait}` };
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted && ch === "\\" && i + 1 < text.length) {
      current += ch + text[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === separator && !quoted) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}
