/**
 * A tenant's log exports, kept in its request-log directory (`<tenant>:hours`) beside the hours
 * they read: the `log_exports` rows (where to send, the schedule, what happened last) and their
 * cursors, one row per hour still open (docs/storage/request-log-object.md).
 */
import type { KeyMode } from "../../keys/api-keys";

/** A tenant's exports at most, both modes together. */
export const MAX_EXPORTS = 5;
/** An export with new entries is sent them at least this often. */
export const RUN_EVERY_MS = 60_000;
/** After the n-th failure in a row, the next run is this much later (the last one repeats). */
export const RETRY_AFTER_MS = [60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];

export type ExportKind = "otlp" | "destination";

export interface ExportRecord {
  export_id: string;
  tenant_id: string;
  mode: KeyMode;
  kind: ExportKind;
  url: string | null;
  /** The custom headers' names; their values are sealed and never answered. */
  header_names: string[];
  destination_id: string | null;
  prefix: string | null;
  /** Ms: entries that arrived from then on are exported. */
  created_at: number;
  /** Every hour up to this one is read to its end (late writes included); -1 before the first. */
  done_hour: number;
  /** Ms: when the alarm runs it next (the retry's time after a failure). */
  next_run_at: number;
  failures: number;
  last_run_at: number | null;
  last_success_at: number | null;
  last_error: string | null;
  delivered_count: number;
}

export interface NewExport {
  export_id: string;
  tenant_id: string;
  mode: KeyMode;
  kind: ExportKind;
  url: string | null;
  header_names: string[];
  /** The headers as JSON, sealed to the export id (null: none). */
  headers_sealed: string | null;
  destination_id: string | null;
  prefix: string | null;
  created_at: number;
}

type Stored = Omit<ExportRecord, "header_names"> & { header_names: string };

const COLUMNS =
  "export_id, tenant_id, mode, kind, url, header_names, destination_id, prefix, created_at, done_hour, next_run_at, failures, last_run_at, last_success_at, last_error, delivered_count";

const recordOf = (s: Stored): ExportRecord => ({ ...s, header_names: JSON.parse(s.header_names) as string[] });

export function exportRows(sql: SqlStorage, mode?: KeyMode): ExportRecord[] {
  const where = mode ? "WHERE mode = ?" : "";
  return sql
    .exec<Stored>(`SELECT ${COLUMNS} FROM log_exports ${where} ORDER BY created_at, export_id`, ...(mode ? [mode] : []))
    .toArray()
    .map(recordOf);
}

export function exportRow(sql: SqlStorage, exportId: string): ExportRecord | null {
  const s = sql.exec<Stored>(`SELECT ${COLUMNS} FROM log_exports WHERE export_id = ?`, exportId).toArray()[0];
  return s ? recordOf(s) : null;
}

export function sealedHeaders(sql: SqlStorage, exportId: string): string | null {
  return (
    sql
      .exec<{ headers_sealed: string | null }>("SELECT headers_sealed FROM log_exports WHERE export_id = ?", exportId)
      .toArray()[0]?.headers_sealed ?? null
  );
}

/** Inserts the export unless the tenant has MAX_EXPORTS already; its first run is a minute away. */
export function insertExport(sql: SqlStorage, e: NewExport): ExportRecord | null {
  const { n } = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM log_exports").one();
  if (n >= MAX_EXPORTS) return null;
  sql.exec(
    `INSERT INTO log_exports (export_id, tenant_id, mode, kind, url, header_names, headers_sealed, destination_id, prefix,
       created_at, done_hour, next_run_at, failures, delivered_count)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, -1, ?, 0, 0)`,
    e.export_id,
    e.tenant_id,
    e.mode,
    e.kind,
    e.url,
    JSON.stringify(e.header_names),
    e.headers_sealed,
    e.destination_id,
    e.prefix,
    e.created_at,
    e.created_at + RUN_EVERY_MS,
  );
  return exportRow(sql, e.export_id);
}

export function deleteExportRow(sql: SqlStorage, exportId: string): boolean {
  const found = exportRow(sql, exportId) !== null;
  sql.exec("DELETE FROM log_export_cursors WHERE export_id = ?", exportId);
  sql.exec("DELETE FROM log_exports WHERE export_id = ?", exportId);
  return found;
}

/** hour → the last `seq` sent of that hour's shard, for the hours still open. */
export function cursorsOf(sql: SqlStorage, exportId: string): Map<number, number> {
  const rows = sql
    .exec<{ hour: number; seq: number }>("SELECT hour, seq FROM log_export_cursors WHERE export_id = ?", exportId)
    .toArray();
  return new Map(rows.map((r) => [r.hour, r.seq]));
}

/** A run that delivered: the cursors move, the hours now closed are forgotten, the count grows. */
export function recordSuccess(
  sql: SqlStorage,
  exportId: string,
  run: { sent: Map<number, number>; doneHour: number; delivered: number; nowMs: number; more: boolean },
): void {
  for (const [hour, seq] of run.sent) {
    sql.exec(
      "INSERT INTO log_export_cursors (export_id, hour, seq) VALUES (?, ?, ?) ON CONFLICT (export_id, hour) DO UPDATE SET seq = MAX(seq, excluded.seq)",
      exportId,
      hour,
      seq,
    );
  }
  sql.exec("DELETE FROM log_export_cursors WHERE export_id = ? AND hour <= ?", exportId, run.doneHour);
  sql.exec(
    `UPDATE log_exports SET done_hour = MAX(done_hour, ?), failures = 0, last_error = NULL, last_run_at = ?,
       last_success_at = CASE WHEN ? > 0 THEN ? ELSE last_success_at END,
       delivered_count = delivered_count + ?, next_run_at = ? WHERE export_id = ?`,
    run.doneHour,
    run.nowMs,
    run.delivered,
    run.nowMs,
    run.delivered,
    // A run cut at its batch size goes on at once; otherwise in a minute.
    run.more ? run.nowMs : run.nowMs + RUN_EVERY_MS,
    exportId,
  );
}

/** A run that failed: the cursors stay, the next run waits by the retry schedule. */
export function recordFailure(sql: SqlStorage, exportId: string, error: string, nowMs: number): void {
  const row = exportRow(sql, exportId);
  if (!row) return;
  const wait = RETRY_AFTER_MS[Math.min(row.failures, RETRY_AFTER_MS.length - 1)] as number;
  sql.exec(
    "UPDATE log_exports SET failures = failures + 1, last_error = ?, last_run_at = ?, next_run_at = ? WHERE export_id = ?",
    error.slice(0, 500),
    nowMs,
    nowMs + wait,
    exportId,
  );
}

/** Nothing to send this time: checked again in a minute. */
export function recordIdle(sql: SqlStorage, exportId: string, doneHour: number, nowMs: number): void {
  sql.exec("DELETE FROM log_export_cursors WHERE export_id = ? AND hour <= ?", exportId, doneHour);
  sql.exec(
    "UPDATE log_exports SET done_hour = MAX(done_hour, ?), next_run_at = ? WHERE export_id = ?",
    doneHour,
    nowMs + RUN_EVERY_MS,
    exportId,
  );
}
