/**
 * A key's spend and the alerts its credit limit has raised. Each reservation names the key that
 * made it; `key_spend` keeps, per key and UTC day of admission (and in a running `total` row),
 * what those reservations hold and captured, updated in the same write as the reservation. A
 * period is whole days (weeks from Monday, months from the 1st), so its spend is at most 31 rows
 * whatever the traffic, and a change of the key's period needs no rebuild. Called by the
 * AccountObject inside the same synchronous method as the tenant's balance check, so admission
 * against a key's limit is atomic: no request can slip between the read and the hold
 * (docs/spend-controls.md).
 */
import { type Decimal, dec, fmt, sum } from "../lib/decimal";
import { crossedThresholds, type KeyLimits } from "./key-limits";
import { type PeriodWindow, periodWindow } from "./key-period";

export const KEY_SPEND_TABLE_SQL = `
  CREATE TABLE IF NOT EXISTS key_spend (
    key_id TEXT NOT NULL, day TEXT NOT NULL, reserved TEXT NOT NULL, captured TEXT NOT NULL,
    PRIMARY KEY (key_id, day));`;

/** The row that sums every day ('t' sorts after every date, so no day range takes it in). */
const TOTAL_ROW = "total";

/**
 * Moves a key's figures for the day a reservation was admitted (`createdAt`) and its total,
 * inside the caller's transaction.
 */
export function bumpKeySpend(sql: SqlStorage, keyId: string, createdAt: string, reserved: Decimal, captured: Decimal): void {
  for (const day of [createdAt.slice(0, 10), TOTAL_ROW]) {
    const row = sql
      .exec<{ reserved: string; captured: string }>(
        "SELECT reserved, captured FROM key_spend WHERE key_id = ? AND day = ?",
        keyId,
        day,
      )
      .toArray()[0];
    sql.exec(
      "INSERT OR REPLACE INTO key_spend (key_id, day, reserved, captured) VALUES (?, ?, ?, ?)",
      keyId,
      day,
      fmt(dec(row?.reserved ?? "0").plus(reserved)),
      fmt(dec(row?.captured ?? "0").plus(captured)),
    );
  }
}

export const KEY_ALERTS_TABLE_SQL = `
  CREATE TABLE IF NOT EXISTS key_alerts (
    key_id TEXT NOT NULL, period_start TEXT NOT NULL, threshold INTEGER NOT NULL,
    created_at TEXT NOT NULL, mailed_at TEXT,
    PRIMARY KEY (key_id, period_start, threshold));
  CREATE INDEX IF NOT EXISTS key_alerts_unmailed ON key_alerts (created_at) WHERE mailed_at IS NULL;`;

/** The keys whose running figures differ from their reservation rows, over all time and per day. */
export function keySpendMismatches(sql: SqlStorage): string[] {
  const keys = sql.exec<{ key_id: string }>("SELECT DISTINCT key_id FROM key_spend").toArray();
  const total = { started_at: null, resets_at: null };
  return keys
    .map((k) => k.key_id)
    .filter((id) => JSON.stringify(keySpend(sql, id, total)) !== JSON.stringify(keySpendFromRows(sql, id, total)));
}

export interface KeySpend {
  /** Captured in the period by reservations the key made in it. */
  spent: string;
  /** Held by the key's open reservations of the period. */
  reserved: string;
}

/** `total` counts from the first reservation; '' sorts before every ISO date. */
function since(window: PeriodWindow): string {
  return window.started_at ?? "";
}

/** What the key's reservations admitted in the period hold and kept: at most 31 day rows, or the total row. */
export function keySpend(sql: SqlStorage, keyId: string, window: PeriodWindow): KeySpend {
  const rows =
    window.started_at === null || window.resets_at === null
      ? sql
          .exec<{ reserved: string; captured: string }>(
            "SELECT reserved, captured FROM key_spend WHERE key_id = ? AND day = ?",
            keyId,
            TOTAL_ROW,
          )
          .toArray()
      : sql
          .exec<{ reserved: string; captured: string }>(
            "SELECT reserved, captured FROM key_spend WHERE key_id = ? AND day >= ? AND day < ?",
            keyId,
            window.started_at.slice(0, 10),
            window.resets_at.slice(0, 10),
          )
          .toArray();
  return { spent: fmt(sum(rows.map((r) => r.captured))), reserved: fmt(sum(rows.map((r) => r.reserved))) };
}

/**
 * The same figures summed from the ledger's reservation rows (through `reservations_by_key`):
 * what `key_spend` must always equal (the ledger audit, and tests).
 */
export function keySpendFromRows(sql: SqlStorage, keyId: string, window: PeriodWindow): KeySpend {
  const rows = sql
    .exec<{ amount: string; status: string; captured_amount: string }>(
      "SELECT amount, status, captured_amount FROM reservations WHERE key_id = ? AND created_at >= ? AND status != 'released'",
      keyId,
      since(window),
    )
    .toArray();
  return {
    spent: fmt(sum(rows.filter((r) => r.status === "captured").map((r) => r.captured_amount))),
    reserved: fmt(sum(rows.filter((r) => r.status === "open").map((r) => r.amount))),
  };
}

/** The limits stored on a key's row, or null (no row, or no limits). */
export function keyLimits(sql: SqlStorage, keyId: string): KeyLimits | null {
  const row = sql.exec<{ limits: string | null }>("SELECT limits FROM api_keys WHERE key_id = ?", keyId).toArray()[0];
  return row?.limits ? (JSON.parse(row.limits) as KeyLimits) : null;
}

export interface KeyStanding {
  limits: KeyLimits | null;
  window: PeriodWindow;
  spend: KeySpend;
  /** Credits the key may still hold in the period; null without a credit limit. */
  remaining: string | null;
}

export function keyStanding(
  sql: SqlStorage,
  keyId: string,
  nowMs: number,
  limits: KeyLimits | null = keyLimits(sql, keyId),
): KeyStanding {
  const window = periodWindow(limits?.period ?? "total", nowMs);
  const spend = keySpend(sql, keyId, window);
  let remaining: string | null = null;
  if (limits?.credits !== undefined) {
    const left = dec(limits.credits).minus(spend.spent).minus(spend.reserved);
    remaining = fmt(left.lt(0) ? dec(0) : left);
  }
  return { limits, window, spend, remaining };
}

/**
 * Records the thresholds a capture of the key's crossed (once per threshold per period: the
 * primary key refuses a second), in the caller's transaction. Returns those newly recorded.
 */
export function recordCrossings(
  sql: SqlStorage,
  keyId: string,
  limits: KeyLimits,
  window: PeriodWindow,
  spentBefore: string,
  spentAfter: string,
  at: string,
): number[] {
  if (limits.credits === undefined) return [];
  const recorded: number[] = [];
  for (const t of crossedThresholds(limits.credits, spentBefore, spentAfter)) {
    const r = sql.exec(
      "INSERT OR IGNORE INTO key_alerts (key_id, period_start, threshold, created_at) VALUES (?, ?, ?, ?)",
      keyId,
      since(window),
      t,
      at,
    );
    if (r.rowsWritten > 0) recorded.push(t);
  }
  return recorded;
}

export type PendingAlert = {
  key_id: string;
  period_start: string;
  threshold: number;
  created_at: string;
};

export function unmailedAlerts(sql: SqlStorage): PendingAlert[] {
  return sql
    .exec<PendingAlert>(
      "SELECT key_id, period_start, threshold, created_at FROM key_alerts WHERE mailed_at IS NULL ORDER BY created_at LIMIT 50",
    )
    .toArray();
}

export function markMailed(sql: SqlStorage, a: PendingAlert, at: string): void {
  sql.exec(
    "UPDATE key_alerts SET mailed_at = ? WHERE key_id = ? AND period_start = ? AND threshold = ?",
    at,
    a.key_id,
    a.period_start,
    a.threshold,
  );
}
