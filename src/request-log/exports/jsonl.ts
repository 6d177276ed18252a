/**
 * Log entries as a JSON Lines file for a tenant's bucket: one entry per line in its detail form
 * (`GET /v1/requests/{id}` as the entry knows it), named by the hour of its first entry so that
 * the files of an hour sit together: `<prefix>/<yyyy>/<mm>/<dd>/<hh>/<first-entry-time>-<count>.jsonl`.
 * The name depends only on the entries, so a batch written again replaces its own file.
 */
import { entryOf, type LogRow } from "../entry";
import type { ExportRow } from "../task-attempts";

export function detailLine(row: ExportRow): string {
  return JSON.stringify({
    ...entryOf(row),
    attempts: row.attempts ?? [],
    stages: row.stages ?? [],
    ...(row.request_body !== null || row.response_body !== null
      ? { request_body: row.request_body, response_body: row.response_body }
      : {}),
  });
}

export function jsonlBody(rows: ExportRow[]): Uint8Array {
  return new TextEncoder().encode(rows.map((r) => `${detailLine(r)}\n`).join(""));
}

const two = (n: number) => String(n).padStart(2, "0");

/** The object key of a batch; `prefix` is the export's (no slash at either end; "" for the root). */
export function jsonlKey(prefix: string, rows: LogRow[]): string {
  const first = Math.min(...rows.map((r) => r.at));
  const d = new Date(first);
  const dir = `${d.getUTCFullYear()}/${two(d.getUTCMonth() + 1)}/${two(d.getUTCDate())}/${two(d.getUTCHours())}`;
  // The time without ':' (awkward in keys and file systems): 20261201T101500123Z.
  const stamp = d.toISOString().replace(/[-:]/g, "").replace(".", "");
  return `${prefix ? `${prefix}/` : ""}${dir}/${stamp}-${rows.length}.jsonl`;
}
