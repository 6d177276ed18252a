/**
 * `Range: bytes=…` as RFC 9110 §14 says: a single satisfiable range is served as 206 with
 * Content-Range; a range no byte of the representation satisfies is 416 with a Content-Range
 * of an asterisk and the size; a header that is not a valid single byte range (or asks for
 * several) is ignored and the whole representation is served.
 */
export type RangeDecision = { kind: "whole" } | { kind: "partial"; offset: number; length: number } | { kind: "unsatisfiable" };

const SINGLE = /^bytes[ \t]*=[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/i;

export function decideRange(header: string | undefined, size: number): RangeDecision {
  if (header === undefined) return { kind: "whole" };
  const m = SINGLE.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return { kind: "whole" };
  if (m[1] === "") {
    const suffix = Number(m[2]);
    // A suffix of zero bytes, or any range of an empty representation, selects nothing.
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    const offset = Math.max(0, size - suffix);
    return { kind: "partial", offset, length: size - offset };
  }
  const first = Number(m[1]);
  const last = m[2] === "" ? Number.POSITIVE_INFINITY : Number(m[2]);
  if (last < first) return { kind: "whole" };
  if (first >= size) return { kind: "unsatisfiable" };
  const end = Math.min(last, size - 1);
  return { kind: "partial", offset: first, length: end - first + 1 };
}
