/**
 * The service's own waits on an upstream — a task's poll and retry backoff, an adapter's poll
 * interval — times UPSTREAM_PACE_SCALE (default 1: the real pace). The provider tests set it below
 * 1 so that their fakes are asked at a test's pace rather than a real job's. A wait the upstream
 * itself asks for (Retry-After) is never scaled: it is the upstream's, not ours.
 */
import type { Env } from "../env";

export function paceOf(env: Pick<Env, "UPSTREAM_PACE_SCALE">): number {
  const raw = Number(env.UPSTREAM_PACE_SCALE ?? "1");
  return Number.isFinite(raw) && raw > 0 && raw <= 1 ? raw : 1;
}

/** `ms` at the given pace, in whole milliseconds. */
export function paced(ms: number, pace: number): number {
  return Math.round(ms * pace);
}

/**
 * The usual wait before reading a job again: a tenth of its age, between `minMs` and `maxMs` (short
 * at first, longer as the job grows old), at the given pace. Each adapter gives its own bounds.
 */
export function growingDelay(elapsedMs: number, minMs: number, maxMs: number, pace: number): number {
  return paced(Math.min(maxMs, Math.max(minMs, elapsedMs / 10)), pace);
}
