/** Small text helpers for the command line's human output. */

export function bytes(n: number | undefined): string {
  if (n === undefined) return "";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Rows as aligned columns (the last column is not padded). */
export function table(head: string[], rows: (string | number | undefined | null)[][]): string {
  const cells = [head, ...rows.map((r) => r.map((c) => (c === undefined || c === null ? "" : String(c))))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** `1280×720 · 5.0 s · video/mp4 · 1.2 MB` for whatever of these a file has. */
export function mediaFacts(a: {
  width?: number;
  height?: number;
  duration_seconds?: number;
  content_type?: string;
  bytes?: number;
}): string {
  return [
    a.width && a.height ? `${a.width}×${a.height}` : undefined,
    a.duration_seconds !== undefined ? `${a.duration_seconds.toFixed(1)} s` : undefined,
    a.content_type,
    a.bytes !== undefined ? bytes(a.bytes) : undefined,
  ]
    .filter(Boolean)
    .join(" · ");
}
