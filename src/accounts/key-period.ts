/**
 * The spending periods of a key's credit limit, in UTC: a day starts at 00:00, a week on Monday
 * at 00:00, a month on the 1st at 00:00; `total` never resets. Pure, so that tests pass the clock.
 */
export const PERIODS = ["day", "week", "month", "total"] as const;
export type Period = (typeof PERIODS)[number];

export interface PeriodWindow {
  /** The period's first instant (ISO 8601); null for `total` (since the key was made). */
  started_at: string | null;
  /** When the next period starts; null for `total`. */
  resets_at: string | null;
}

const DAY_MS = 86_400_000;

/** Start of `nowMs`'s period and of the next, in ms since the epoch. */
function bounds(period: Exclude<Period, "total">, nowMs: number): [number, number] {
  const now = new Date(nowMs);
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const dayStart = Date.UTC(y, m, now.getUTCDate());
  switch (period) {
    case "day":
      return [dayStart, dayStart + DAY_MS];
    case "week": {
      // getUTCDay: 0 is Sunday; Monday starts the week.
      const sinceMonday = (now.getUTCDay() + 6) % 7;
      const start = dayStart - sinceMonday * DAY_MS;
      return [start, start + 7 * DAY_MS];
    }
    case "month":
      return [Date.UTC(y, m, 1), Date.UTC(y, m + 1, 1)];
  }
}

export function periodWindow(period: Period, nowMs: number): PeriodWindow {
  if (period === "total") return { started_at: null, resets_at: null };
  const [start, next] = bounds(period, nowMs);
  return { started_at: new Date(start).toISOString(), resets_at: new Date(next).toISOString() };
}
