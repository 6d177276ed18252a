/**
 * Durations kept as counts per bucket, so that minutes, routes and providers add up exactly and a
 * percentile is read from the sum. A percentile is the upper bound of the bucket it falls in.
 */

/** Upper bounds in milliseconds; the last bucket holds everything longer. */
export const BUCKETS_MS = [
  500, 1_000, 2_000, 3_000, 5_000, 8_000, 13_000, 20_000, 30_000, 45_000, 60_000, 90_000, 120_000, 180_000, 300_000, 450_000,
  600_000, 900_000, 1_200_000, 1_800_000, 3_600_000,
] as const;

export function emptyHistogram(): number[] {
  return new Array(BUCKETS_MS.length + 1).fill(0);
}

export function bucketOf(ms: number): number {
  const i = BUCKETS_MS.findIndex((b) => ms <= b);
  return i < 0 ? BUCKETS_MS.length : i;
}

export function addInto(into: number[], from: readonly number[]): number[] {
  for (let i = 0; i < into.length; i++) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
  return into;
}

/** The q-quantile (0..1) in milliseconds, or null without any duration. */
export function quantile(h: readonly number[], q: number): number | null {
  const total = h.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < h.length; i++) {
    seen += h[i] ?? 0;
    if (seen >= rank) return BUCKETS_MS[Math.min(i, BUCKETS_MS.length - 1)] as number;
  }
  return BUCKETS_MS[BUCKETS_MS.length - 1] as number;
}
