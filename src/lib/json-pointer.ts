/** RFC 6901: `~` becomes `~0` and `/` becomes `~1` inside each reference token. */
export function toJsonPointer(path: readonly (string | number | symbol)[]): string {
  return path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}
