/**
 * The console's usage report: per UTC day and model, over a window of whole days given as
 * `from` and `to` (YYYY-MM-DD, both included, as a person reads "from the 1st to the 31st"),
 * summed by the same account query as `GET /v1/usage`.
 */

import type { Env } from "../http/context";
import { invalidWindow } from "../lib/time-window";
import { KEY_MODES, type KeyMode, USAGE_COUNTERS, type UsageRow } from "../services/accounts";
import { USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS } from "../services/contracts/usage";
import { usageRowsByDayAndModel } from "../services/usage";
import { toCsv } from "./csv";

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface UsageWindow {
  /** First day, included. */
  from: string;
  /** Last day, included. */
  to: string;
  mode: KeyMode;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A real calendar day as YYYY-MM-DD, or undefined when absent; 422 invalid_window otherwise. */
function parseDay(value: string | undefined, field: "from" | "to"): number | undefined {
  if (value === undefined || value === "") return undefined;
  const ms = DAY.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms) || day(ms) !== value) {
    throw invalidWindow(field, `${field} must be a date, YYYY-MM-DD.`, { [field]: value });
  }
  return ms;
}

/** The window a query asks for: by default the last 30 days, today included. */
export function usageWindow(q: { from?: string; to?: string; mode?: string }, now: number): UsageWindow {
  const mode = (KEY_MODES as readonly string[]).includes(q.mode ?? "") ? (q.mode as KeyMode) : "live";
  const to = parseDay(q.to, "to") ?? Date.parse(`${day(now)}T00:00:00Z`);
  const from = parseDay(q.from, "from") ?? to - (USAGE_DEFAULT_DAYS - 1) * DAY_MS;
  const details = { from: q.from ?? day(from), to: q.to ?? day(to) };
  if (from > to) throw invalidWindow("from", "from must not be later than to.", details);
  if ((to - from) / DAY_MS + 1 > USAGE_MAX_DAYS) {
    throw invalidWindow("from", `The window may span at most ${USAGE_MAX_DAYS} days.`, { ...details, max_days: USAGE_MAX_DAYS });
  }
  return { from: day(from), to: day(to), mode };
}

/** One row per day and model with settled work in the window, sorted by day then model. */
export function usageByDayAndModel(env: Env, tenantId: string, w: UsageWindow): Promise<UsageRow[]> {
  const end = new Date(Date.parse(`${w.to}T00:00:00Z`) + DAY_MS).toISOString();
  return usageRowsByDayAndModel(env, tenantId, w.mode, `${w.from}T00:00:00.000Z`, end);
}

export const USAGE_CSV_COLUMNS = [
  "day",
  "model",
  "credits",
  "tasks",
  "completions",
  "succeeded",
  "failed",
  "canceled",
  ...USAGE_COUNTERS,
] as const;

/** The report as CSV: a header row, then one record per day and model. */
export function usageCsv(rows: readonly UsageRow[]): string {
  return toCsv([
    USAGE_CSV_COLUMNS,
    ...rows.map((r) =>
      USAGE_CSV_COLUMNS.map((c) => (c === "day" ? r.key : c === "model" ? (r.subkey ?? "") : (r[c] as string | number))),
    ),
  ]);
}
