/**
 * CSV as RFC 4180 writes it: CRLF line ends, a field quoted when it holds a comma, a quote, CR or
 * LF, a quote inside a quoted field doubled.
 */
export function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows (the header first) as one CSV document, each record ending with CRLF. */
export function toCsv(rows: readonly (readonly (string | number)[])[]): string {
  return rows.map((r) => `${r.map(csvField).join(",")}\r\n`).join("");
}
