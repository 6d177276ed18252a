/**
 * What the tenant's settled work used, kept by the AccountObject for `GET /v1/usage`.
 *
 * Each capture, charge or release that settles a task or a chat call writes one row of
 * `usage_entries`, in the same transaction and under the ledger entry's id, so a row exists
 * exactly when its settlement does (a repeated settlement writes nothing). The report sums them
 * in SQLite, in one query per request. Credits are kept as whole credits and nano-credits in two
 * integer columns so that the sums stay exact (docs/storage/account-object.md).
 */

import type { KeyMode } from "../keys/api-keys";
import { type Decimal, dec, fmt } from "../lib/decimal";

/** The task envelope's usage counters, summed as they are. */
export const USAGE_COUNTERS = [
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_creation_tokens",
  "reasoning_tokens",
  "image_count",
  "image_pixels",
  "video_seconds",
  "input_video_seconds",
  "output_video_seconds",
  "audio_seconds",
  "characters",
] as const;
export type UsageCounter = (typeof USAGE_COUNTERS)[number];
export type UsageCounters = Partial<Record<UsageCounter, number>>;

export const USAGE_GROUPS = ["day", "capability", "model"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** How a chat completion appears beside tasks when grouped by capability. */
export const CHAT_CAPABILITY = "chat_completion";

/** What a settlement tells the usage report; given by the caller of capture, charge or release. */
export interface UsageNote {
  /** The key's mode: live and test usage are reported apart. */
  mode: KeyMode;
  kind: "task" | "completion";
  capability: string;
  model: string;
  outcome: "succeeded" | "failed" | "canceled";
  /**
   * Whether this entry counts its task or completion; false for an entry that only adds credits
   * to one counted under another entry (a chat call's charge beyond its hold).
   */
  counted: boolean;
  /** What was delivered and billed; none for work that failed or was canceled. */
  counters?: UsageCounters;
}

export type UsageFigures = {
  credits: string;
  tasks: number;
  completions: number;
  succeeded: number;
  failed: number;
  canceled: number;
} & Record<UsageCounter, number>;

/** A group's figures; `subkey` is the second key's value when the report is grouped by two. */
export type UsageRow = { key: string; subkey?: string } & UsageFigures;

/** A report's window and grouping; `then_by` splits each group by a second key (day × model). */
export interface UsageQuery {
  mode: KeyMode;
  from: string;
  to: string;
  group_by: UsageGroup;
  then_by?: UsageGroup;
}

const NANOS = 1_000_000_000;

/** Whole credits and nano-credits (amounts have at most 9 decimals and at most 15 digits before). */
function split(amount: Decimal): [number, number] {
  const whole = amount.round(0, 0); // 0: round down
  return [Number(whole.toFixed(0)), Number(amount.minus(whole).times(NANOS).toFixed(0))];
}

export const USAGE_TABLE_SQL = `
  CREATE TABLE usage_entries (
    entry_id TEXT PRIMARY KEY, at TEXT NOT NULL, mode TEXT NOT NULL, kind TEXT NOT NULL,
    capability TEXT NOT NULL, model TEXT NOT NULL, outcome TEXT NOT NULL, counted INTEGER NOT NULL,
    credit_units INTEGER NOT NULL, credit_nanos INTEGER NOT NULL,
    ${USAGE_COUNTERS.map((c) => `${c} INTEGER NOT NULL DEFAULT 0`).join(", ")});
  CREATE INDEX usage_entries_by_time ON usage_entries (mode, at);
`;

/**
 * One row for several settlements of the same kind (a batch of chat charges): their credits and
 * counters summed, `counted` the number of them that count, under the first one's id. The report
 * sums rows, so it reads the same as one row each; call inside the batch's transaction.
 */
export function recordUsageBatch(
  sql: SqlStorage,
  at: string,
  entries: { id: string; credits: Decimal; note: UsageNote }[],
): void {
  const groups = new Map<string, { id: string; credits: Decimal; note: UsageNote; counted: number; counters: number[] }>();
  for (const { id, credits, note } of entries) {
    const key = `${note.mode}\n${note.kind}\n${note.capability}\n${note.model}\n${note.outcome}`;
    let g = groups.get(key);
    if (!g) {
      g = { id, credits: dec(0), note, counted: 0, counters: USAGE_COUNTERS.map(() => 0) };
      groups.set(key, g);
    }
    g.credits = g.credits.plus(credits);
    if (note.counted) g.counted++;
    USAGE_COUNTERS.forEach((c, i) => {
      const v = note.counters?.[c];
      if (typeof v === "number" && Number.isFinite(v) && v > 0) (g.counters[i] as number) += v;
    });
  }
  for (const g of groups.values()) {
    insertUsage(sql, g.id, at, g.credits, g.note, g.counted, g.counters);
  }
}

/** Writes the row of one settlement; call inside the settlement's transaction. */
export function recordUsage(sql: SqlStorage, entryId: string, at: string, credits: Decimal, note: UsageNote): void {
  const counters = USAGE_COUNTERS.map((c) => {
    const v = note.counters?.[c];
    return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0;
  });
  insertUsage(sql, entryId, at, credits, note, note.counted ? 1 : 0, counters);
}

function insertUsage(
  sql: SqlStorage,
  entryId: string,
  at: string,
  credits: Decimal,
  note: UsageNote,
  counted: number,
  counters: number[],
): void {
  const [units, nanos] = split(credits);
  sql.exec(
    `INSERT OR IGNORE INTO usage_entries (entry_id, at, mode, kind, capability, model, outcome, counted, credit_units, credit_nanos, ${USAGE_COUNTERS.join(", ")})
     VALUES (${Array(10 + USAGE_COUNTERS.length)
       .fill("?")
       .join(", ")})`,
    entryId,
    at,
    note.mode,
    note.kind,
    note.capability,
    note.model,
    note.outcome,
    counted,
    units,
    nanos,
    ...counters,
  );
}

/** The group key of each grouping, as SQL over `usage_entries` (UTC days: `at` is ISO 8601 in UTC). */
const GROUP_KEY: Record<UsageGroup, string> = {
  day: "substr(at, 1, 10)",
  capability: "capability",
  model: "model",
};

type RawRow = {
  key: string;
  subkey?: string;
  credit_units: string;
  credit_nanos: string;
  tasks: number;
  completions: number;
  succeeded: number;
  failed: number;
  canceled: number;
} & Record<UsageCounter, number>;

/** One row per group (or pair of groups, with `then_by`) with settlements in [from, to), sorted by key. */
export function usageRows(sql: SqlStorage, q: UsageQuery): UsageRow[] {
  const two = q.then_by !== undefined && q.then_by !== q.group_by;
  const rows = sql
    .exec<RawRow>(
      `SELECT ${GROUP_KEY[q.group_by]} AS key, ${two ? `${GROUP_KEY[q.then_by as UsageGroup]} AS subkey,` : ""}
         CAST(SUM(credit_units) AS TEXT) AS credit_units, CAST(SUM(credit_nanos) AS TEXT) AS credit_nanos,
         SUM(counted * (kind = 'task')) AS tasks, SUM(counted * (kind = 'completion')) AS completions,
         SUM(counted * (outcome = 'succeeded')) AS succeeded, SUM(counted * (outcome = 'failed')) AS failed,
         SUM(counted * (outcome = 'canceled')) AS canceled,
         ${USAGE_COUNTERS.map((c) => `SUM(${c}) AS ${c}`).join(", ")}
       FROM usage_entries WHERE mode = ? AND at >= ? AND at < ?
       GROUP BY key${two ? ", subkey" : ""} ORDER BY key${two ? ", subkey" : ""}`,
      q.mode,
      q.from,
      q.to,
    )
    .toArray();
  return rows.map(({ credit_units, credit_nanos, ...r }) => ({
    ...r,
    credits: fmt(dec(credit_units).plus(dec(credit_nanos).div(NANOS))),
  }));
}

export function emptyFigures(): UsageFigures {
  return {
    credits: "0",
    tasks: 0,
    completions: 0,
    succeeded: 0,
    failed: 0,
    canceled: 0,
    ...(Object.fromEntries(USAGE_COUNTERS.map((c) => [c, 0])) as Record<UsageCounter, number>),
  };
}

/** The sum of the groups (each settlement is in exactly one group). */
export function usageTotals(rows: readonly UsageRow[]): UsageFigures {
  const total = emptyFigures();
  for (const { key: _key, subkey: _subkey, ...r } of rows) {
    total.credits = fmt(dec(total.credits).plus(r.credits));
    for (const k of ["tasks", "completions", "succeeded", "failed", "canceled", ...USAGE_COUNTERS] as const) total[k] += r[k];
  }
  return total;
}

/**
 * Rows for what was settled before usage was recorded (schema version 6): each finished task of
 * the list with the credits captured under its holds, and each captured chat charge. The ledger
 * does not say what those used, nor which key's mode, nor which chat model: they are counted as
 * live, with no counters, and chat under the model `unknown`.
 */
export function backfillUsage(sql: SqlStorage): void {
  const captured = new Map<string, Decimal>();
  const chats: { entry_id: string; amount: string; at: string }[] = [];
  for (const r of sql
    .exec<{ task_id: string; captured_amount: string; settled_at: string | null; created_at: string }>(
      "SELECT task_id, captured_amount, settled_at, created_at FROM reservations WHERE status = 'captured'",
    )
    .toArray()) {
    if (r.task_id.startsWith("task_")) {
      const task = r.task_id.split(":")[0] as string;
      captured.set(task, (captured.get(task) ?? dec(0)).plus(r.captured_amount));
    } else chats.push({ entry_id: r.task_id, amount: r.captured_amount, at: r.settled_at ?? r.created_at });
  }
  const tasks = sql
    .exec<{
      task_id: string;
      status: "succeeded" | "failed" | "canceled";
      capability: string;
      model: string;
      updated_at: string;
    }>("SELECT task_id, status, capability, model, updated_at FROM tasks WHERE status IN ('succeeded', 'failed', 'canceled')")
    .toArray();
  for (const t of tasks) {
    recordUsage(sql, t.task_id, t.updated_at, captured.get(t.task_id) ?? dec(0), {
      mode: "live",
      kind: "task",
      capability: t.capability,
      model: t.model,
      outcome: t.status,
      counted: true,
    });
  }
  for (const c of chats) {
    recordUsage(sql, c.entry_id, c.at, dec(c.amount), {
      mode: "live",
      kind: "completion",
      capability: CHAT_CAPABILITY,
      model: "unknown",
      outcome: "succeeded",
      counted: !c.entry_id.endsWith("_excess"),
    });
  }
}
