/** RFC 6901: `~` becomes `~0` and `/` becomes `~1` inside each reference token. */
export function toJsonPointer(path: readonly (string | number | symbol)[]): string {
  return path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

/**
 * The reference tokens of a pointer, unescaped, with array indices (digits without a leading
 * zero) as numbers: a `loc` in `details.errors` holds an index as a number, as zod's paths do.
 */
export function fromJsonPointer(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .split("/")
    .slice(1)
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((t) => (/^(0|[1-9]\d*)$/.test(t) ? Number(t) : t));
}
