/**
 * The `quotes` rows of an AccountObject: binding price quotes, found by id from any isolate of the
 * tenant's region, each used by at most one task. A quote is kept a day past its expiry so that a
 * late create hears `quote_expired` rather than `quote_not_found`; each new quote sweeps the rows
 * past that (by the expiry index, never a scan of the whole table).
 */
import type { KeyMode } from "../keys/api-keys";

/** How long a quote binds. */
export const QUOTE_TTL_MS = 15 * 60_000;
/** How long an expired quote is still known as expired before its row is swept. */
export const QUOTE_KEPT_MS = 24 * 60 * 60_000;

export const QUOTES_TABLE_SQL = `
  CREATE TABLE IF NOT EXISTS quotes (
    quote_id TEXT PRIMARY KEY, mode TEXT NOT NULL, operation TEXT NOT NULL, request_hash TEXT NOT NULL,
    resolved_model TEXT NOT NULL, credits TEXT NOT NULL, lines TEXT NOT NULL,
    created_at TEXT NOT NULL, expires_at INTEGER NOT NULL, used_by TEXT, used_at TEXT);
  CREATE INDEX IF NOT EXISTS quotes_by_expiry ON quotes (expires_at);
`;

/** One priced meter of a quote: the estimated quantity at the unit price in force when quoted. */
export interface QuoteLine {
  meter: string;
  quantity: string;
  unit: string;
  unit_credits: string;
  credits: string;
}

export interface QuoteRecord {
  quote_id: string;
  mode: KeyMode;
  /** The capability name (`text_to_video`, …). */
  operation: string;
  /** The idempotency hash of the quoted create body (src/tasks/idempotency.ts). */
  request_hash: string;
  resolved_model: string;
  credits: string;
  lines: QuoteLine[];
  created_at: string;
  /** Ms since the epoch. */
  expires_at: number;
  /** The task object (tenant, mode and Idempotency-Key) that used it; null while unused. */
  used_by: string | null;
  used_at: string | null;
}

type Row = Omit<QuoteRecord, "lines" | "mode"> & { lines: string; mode: string };

export function insertQuote(sql: SqlStorage, q: QuoteRecord, now: number): void {
  sql.exec("DELETE FROM quotes WHERE expires_at < ?", now - QUOTE_KEPT_MS);
  sql.exec(
    "INSERT INTO quotes (quote_id, mode, operation, request_hash, resolved_model, credits, lines, created_at, expires_at, used_by, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
    q.quote_id,
    q.mode,
    q.operation,
    q.request_hash,
    q.resolved_model,
    q.credits,
    JSON.stringify(q.lines),
    q.created_at,
    q.expires_at,
  );
}

export function quoteRow(sql: SqlStorage, quoteId: string): QuoteRecord | null {
  const r = sql.exec<Row>("SELECT * FROM quotes WHERE quote_id = ?", quoteId).toArray()[0];
  if (!r) return null;
  return { ...r, mode: r.mode as KeyMode, lines: JSON.parse(r.lines) as QuoteLine[] };
}

export type QuoteUse = "ok" | "used" | "expired" | "not_found";

/**
 * Marks the quote used by `by` (a task object's name), unless another already used it or it
 * expired. Using it again under the same name is "ok": a retry of the same task.
 */
export function useQuoteRow(sql: SqlStorage, quoteId: string, mode: KeyMode, by: string, now: number): QuoteUse {
  const q = quoteRow(sql, quoteId);
  if (!q || q.mode !== mode) return "not_found";
  if (q.used_by === by) return "ok";
  if (q.used_by !== null) return "used";
  if (q.expires_at <= now) return "expired";
  sql.exec("UPDATE quotes SET used_by = ?, used_at = ? WHERE quote_id = ?", by, new Date(now).toISOString(), quoteId);
  return "ok";
}
