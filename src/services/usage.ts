/** What a caller's settled work used over a window, in its key's mode (`GET /v1/usage`). */

import { accountFor } from "../accounts/account-stub";
import type { Caller } from "../accounts/service";
import { type UsageGroup, type UsageRow, usageTotals } from "../accounts/usage";
import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { invalidWindow, parseInstant } from "../lib/time-window";
import { USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS } from "./contracts/usage";

const DAY_MS = 86_400_000;

/** [from, to) from the query, with its defaults; 422 invalid_window naming `/from` or `/to`. */
export function usageWindow(q: { from?: string; to?: string }, now: number): { from: string; to: string } {
  const to = parseInstant(q.to, "to") ?? new Date(now).toISOString();
  const from = parseInstant(q.from, "from") ?? new Date(Date.parse(to) - USAGE_DEFAULT_DAYS * DAY_MS).toISOString();
  const span = Date.parse(to) - Date.parse(from);
  const details = { from: q.from ?? from, to: q.to ?? to };
  if (span <= 0) throw invalidWindow("from", "from must be earlier than to.", details);
  if (span > USAGE_MAX_DAYS * DAY_MS) {
    throw invalidWindow("from", `The window may span at most ${USAGE_MAX_DAYS} days; ask for several windows.`, {
      ...details,
      max_days: USAGE_MAX_DAYS,
    });
  }
  return { from, to };
}

/** The usage report of the caller's mode over the query's window, one row per group. */
export async function usageReport(
  env: Env,
  caller: Pick<Caller, "tenant_id" | "mode">,
  q: { from?: string; to?: string; group_by: UsageGroup },
  now = Date.now(),
) {
  const { from, to } = usageWindow(q, now);
  const rows = await accountFor(env, caller.tenant_id).usage({ mode: caller.mode, from, to, group_by: q.group_by });
  return {
    object: "usage" as const,
    mode: caller.mode,
    from,
    to,
    group_by: q.group_by,
    data: rows.map(({ key, ...figures }) => ({ [q.group_by]: key, ...figures })),
    totals: usageTotals(rows),
  };
}

/** One row per UTC day and model with settled work in [from, to) of `mode`, sorted by day then model. */
export function usageRowsByDayAndModel(env: Env, tenantId: string, mode: KeyMode, from: string, to: string): Promise<UsageRow[]> {
  return accountFor(env, tenantId).usage({ mode, from, to, group_by: "day", then_by: "model" });
}
