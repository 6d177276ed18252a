/**
 * A key's family: the key, the keys it created, theirs, and so on. A key's credit limit bounds
 * what its whole family holds and captures in its period (docs/spend-controls.md, "Families").
 *
 * Each key row records, at creation and for good, its `lineage` (its own id, or for a key issued
 * by a rotation, the lineage of the key it replaced) and its `ancestors` (the lineages of the key
 * that made it and of that key's own ancestors, nearest first). `key_family_spend` keeps, per
 * lineage and UTC day of admission (and in a running `total` row), what every key of the lineage
 * and of the lineages below it holds and captured, moved in the same write as the hold. A hold is
 * checked against the limit of its own lineage and of each ancestor, each in its own period, in
 * the account object's synchronous `reserve()`: no concurrent hold comes between the check and the
 * write, whichever key of the family makes it.
 */
import { type Decimal, dec, fmt, sum } from "../lib/decimal";
import type { KeyLimits } from "./key-limits";
import { type PeriodWindow, periodWindow } from "./key-period";
import type { KeySpend } from "./key-spend";

export const KEY_FAMILY_SPEND_TABLE_SQL = `
  CREATE TABLE IF NOT EXISTS key_family_spend (
    lineage TEXT NOT NULL, day TEXT NOT NULL, reserved TEXT NOT NULL, captured TEXT NOT NULL,
    PRIMARY KEY (lineage, day));`;

/** Keys a tenant may hold at once: not revoked, not expired, not replaced by a rotation. */
export const MAX_ACTIVE_KEYS = 500;

/** Ancestors kept beyond this depth would make every hold of a deep key read more rows; refused at creation. */
export const MAX_FAMILY_DEPTH = 8;

/** The row that sums every day, as in `key_spend`. */
const TOTAL_ROW = "total";

/** What a key row records about its family (null lineage: a row of an object not yet migrated). */
type FamilyRow = {
  lineage: string | null;
  ancestors: string | null;
};

/**
 * The lineages a key's holds count against, its own first, then its ancestors nearest first.
 * Empty for an unknown key.
 */
export function familyChain(sql: SqlStorage, keyId: string): string[] {
  const row = sql.exec<FamilyRow>("SELECT lineage, ancestors FROM api_keys WHERE key_id = ?", keyId).toArray()[0];
  if (!row) return [];
  return [row.lineage ?? keyId, ...(row.ancestors ? (JSON.parse(row.ancestors) as string[]) : [])];
}

/** The ancestors a key made by `parentKeyId` records: the parent's lineage, then the parent's ancestors. */
export function ancestorsOf(sql: SqlStorage, parentKeyId: string): string[] {
  return familyChain(sql, parentKeyId);
}

/** The key that now stands for a lineage: its newest key (a rotation's latest). */
export function lineageKeyId(sql: SqlStorage, lineage: string): string {
  return (
    sql
      .exec<{ key_id: string }>(
        "SELECT key_id FROM api_keys WHERE lineage = ? ORDER BY created_at DESC, key_id DESC LIMIT 1",
        lineage,
      )
      .toArray()[0]?.key_id ?? lineage
  );
}

/** A lineage's limits: those of its newest key (a rotation copies them); null without. */
export function lineageLimits(sql: SqlStorage, lineage: string): KeyLimits | null {
  const row = sql
    .exec<{ limits: string | null }>(
      "SELECT limits FROM api_keys WHERE lineage = ? ORDER BY created_at DESC, key_id DESC LIMIT 1",
      lineage,
    )
    .toArray()[0];
  return row?.limits ? (JSON.parse(row.limits) as KeyLimits) : null;
}

/** Moves the figures of every lineage of `chain` for the day a hold was admitted, and their totals, in the caller's write. */
export function bumpFamilySpend(sql: SqlStorage, chain: string[], createdAt: string, reserved: Decimal, captured: Decimal): void {
  for (const lineage of chain) {
    for (const day of [createdAt.slice(0, 10), TOTAL_ROW]) {
      const row = sql
        .exec<{ reserved: string; captured: string }>(
          "SELECT reserved, captured FROM key_family_spend WHERE lineage = ? AND day = ?",
          lineage,
          day,
        )
        .toArray()[0];
      sql.exec(
        "INSERT OR REPLACE INTO key_family_spend (lineage, day, reserved, captured) VALUES (?, ?, ?, ?)",
        lineage,
        day,
        fmt(dec(row?.reserved ?? "0").plus(reserved)),
        fmt(dec(row?.captured ?? "0").plus(captured)),
      );
    }
  }
}

/** What the family of a lineage holds and captured in a period: at most 31 day rows, or the total row. */
export function familySpend(sql: SqlStorage, lineage: string, window: PeriodWindow): KeySpend {
  const rows =
    window.started_at === null || window.resets_at === null
      ? sql
          .exec<{ reserved: string; captured: string }>(
            "SELECT reserved, captured FROM key_family_spend WHERE lineage = ? AND day = ?",
            lineage,
            TOTAL_ROW,
          )
          .toArray()
      : sql
          .exec<{ reserved: string; captured: string }>(
            "SELECT reserved, captured FROM key_family_spend WHERE lineage = ? AND day >= ? AND day < ?",
            lineage,
            window.started_at.slice(0, 10),
            window.resets_at.slice(0, 10),
          )
          .toArray();
  return { spent: fmt(sum(rows.map((r) => r.captured))), reserved: fmt(sum(rows.map((r) => r.reserved))) };
}

/** The same figures over all time, summed from the reservation rows of every key of the family (the ledger audit). */
function familySpendFromRows(sql: SqlStorage, lineage: string): KeySpend {
  const rows = sql
    .exec<{ amount: string; status: string; captured_amount: string }>(
      `SELECT r.amount, r.status, r.captured_amount FROM reservations r JOIN api_keys k ON k.key_id = r.key_id
       WHERE r.status != 'released'
         AND (COALESCE(k.lineage, k.key_id) = ? OR EXISTS (SELECT 1 FROM json_each(COALESCE(k.ancestors, '[]')) WHERE value = ?))`,
      lineage,
      lineage,
    )
    .toArray();
  return {
    spent: fmt(sum(rows.filter((r) => r.status === "captured").map((r) => r.captured_amount))),
    reserved: fmt(sum(rows.filter((r) => r.status === "open").map((r) => r.amount))),
  };
}

/** The lineages whose running family figures differ from their keys' reservation rows: none, always. */
export function familySpendMismatches(sql: SqlStorage): string[] {
  const lineages = sql.exec<{ lineage: string }>("SELECT DISTINCT lineage FROM key_family_spend").toArray();
  const total = { started_at: null, resets_at: null };
  return lineages
    .map((l) => l.lineage)
    .filter((l) => JSON.stringify(familySpend(sql, l, total)) !== JSON.stringify(familySpendFromRows(sql, l)));
}

/** A lineage's limits, period and what its family may still hold (null remaining: no credit limit). */
export interface FamilyStanding {
  lineage: string;
  limits: KeyLimits | null;
  window: PeriodWindow;
  spend: KeySpend;
  remaining: string | null;
}

export function familyStanding(
  sql: SqlStorage,
  lineage: string,
  nowMs: number,
  limits: KeyLimits | null = lineageLimits(sql, lineage),
): FamilyStanding {
  const window = periodWindow(limits?.period ?? "total", nowMs);
  const spend = familySpend(sql, lineage, window);
  let remaining: string | null = null;
  if (limits?.credits !== undefined) {
    const left = dec(limits.credits).minus(spend.spent).minus(spend.reserved);
    remaining = fmt(left.lt(0) ? dec(0) : left);
  }
  return { lineage, limits, window, spend, remaining };
}

/**
 * The standings of the lineages of `chain` that have a credit limit, own first. A key and its
 * ancestors without credit limits cost one primary-key read each here.
 */
export function limitedStandings(sql: SqlStorage, chain: string[], nowMs: number): FamilyStanding[] {
  const out: FamilyStanding[] = [];
  for (const lineage of chain) {
    const limits = lineageLimits(sql, lineage);
    if (limits?.credits !== undefined) out.push(familyStanding(sql, lineage, nowMs, limits));
  }
  return out;
}

/** The first limit of `chain` that `amount` would pass, or null when every one leaves room. */
export function familyRefusal(sql: SqlStorage, chain: string[], amount: string, nowMs: number): FamilyStanding | null {
  for (const s of limitedStandings(sql, chain, nowMs)) if (s.remaining !== null && dec(s.remaining).lt(amount)) return s;
  return null;
}

/** Whether any lineage of the key's chain has a credit limit: its every charge must then be held first. */
export function familyHasCreditLimit(sql: SqlStorage, keyId: string): boolean {
  return familyChain(sql, keyId).some((l) => lineageLimits(sql, l)?.credits !== undefined);
}

/** Keys counted against MAX_ACTIVE_KEYS: not revoked, not past their end, not replaced by a rotation. */
export function activeKeyCount(sql: SqlStorage, nowIso: string): number {
  return (
    sql
      .exec<{ n: number }>(
        "SELECT COUNT(*) AS n FROM api_keys WHERE status != 'revoked' AND replaced_by IS NULL AND (expires_at IS NULL OR expires_at > ?)",
        nowIso,
      )
      .toArray()[0]?.n ?? 0
  );
}

/**
 * For the migration: each key's lineage (its own id, or its predecessor's through `replaced_by`)
 * and ancestors (from `created_by = 'api_key:<id>'`), and the family figures rebuilt from the
 * reservation rows, so that holds made before count against the families they belong to.
 */
export function backfillFamilies(sql: SqlStorage): void {
  const rows = sql
    .exec<{ key_id: string; created_by: string | null; replaced_by: string | null }>(
      "SELECT key_id, created_by, replaced_by FROM api_keys ORDER BY created_at, key_id",
    )
    .toArray();
  const byId = new Map(rows.map((r) => [r.key_id, r]));
  const predecessor = new Map<string, string>();
  for (const r of rows) if (r.replaced_by) predecessor.set(r.replaced_by, r.key_id);
  const lineage = (id: string): string => {
    const seen = new Set<string>();
    let at = id;
    while (predecessor.has(at) && !seen.has(at)) {
      seen.add(at);
      at = predecessor.get(at) as string;
    }
    return at;
  };
  const ancestors = (id: string): string[] => {
    const out: string[] = [];
    let row = byId.get(id);
    while (row?.created_by?.startsWith("api_key:") && out.length < MAX_FAMILY_DEPTH) {
      const parent = row.created_by.slice("api_key:".length);
      const l = lineage(parent);
      if (out.includes(l) || l === lineage(id)) break;
      out.push(l);
      row = byId.get(parent);
    }
    return out;
  };
  for (const r of rows) {
    sql.exec(
      "UPDATE api_keys SET lineage = ?, ancestors = ? WHERE key_id = ?",
      lineage(r.key_id),
      JSON.stringify(ancestors(r.key_id)),
      r.key_id,
    );
  }
  const holds = sql
    .exec<{ key_id: string; amount: string; status: string; captured_amount: string; created_at: string }>(
      "SELECT key_id, amount, status, captured_amount, created_at FROM reservations WHERE key_id IS NOT NULL AND status != 'released'",
    )
    .toArray();
  for (const h of holds) {
    const chain = familyChain(sql, h.key_id);
    if (chain.length === 0) continue;
    bumpFamilySpend(
      sql,
      chain,
      h.created_at,
      h.status === "open" ? dec(h.amount) : dec(0),
      h.status === "captured" ? dec(h.captured_amount) : dec(0),
    );
  }
}
