/** Credits spent per day and capability over the last days (the console's overview chart). */
import type { Env } from "../env";
import { accountFor } from "./account-stub";

export interface DailySpend {
  /** YYYY-MM-DD (UTC), oldest first, one per day of the window, today last. */
  day: string;
  /** Credits per capability that day (only those with any), decimal strings. */
  by: Record<string, string>;
}

const DAY_MS = 86_400_000;

/** The last `days` UTC days, today included, of live (charged) work. */
export async function dailySpend(env: Env, tenantId: string, days = 30, now = Date.now()): Promise<DailySpend[]> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const from = new Date(today - (days - 1) * DAY_MS).toISOString();
  const to = new Date(today + DAY_MS).toISOString();
  const rows = await accountFor(env, tenantId).usage({ mode: "live", from, to, group_by: "day", then_by: "capability" });
  const out: DailySpend[] = [];
  for (let i = 0; i < days; i++) out.push({ day: new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10), by: {} });
  const byDay = new Map(out.map((d) => [d.day, d]));
  for (const r of rows) {
    const slot = byDay.get(r.key);
    if (slot && r.subkey && r.credits !== "0") slot.by[r.subkey] = r.credits;
  }
  return out;
}
