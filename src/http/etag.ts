/**
 * `If-None-Match` as RFC 9110 §13.1.2 says for GET: `*` matches any current representation; a
 * list of entity tags matches when one of them equals the current tag by the weak comparison
 * (opaque tags equal, `W/` ignored). A header that names no valid tag matches nothing.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = header.trim();
  if (value === "*") return true;
  const current = opaque(etag);
  for (const m of value.matchAll(/(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g)) if (m[1] === current) return true;
  return false;
}

function opaque(etag: string): string {
  return etag.replace(/^W\//, "").replace(/^"|"$/g, "");
}
