/**
 * A task about to submit finds its route's circuit open (or another task making its half-open
 * probe): it moves to the first later route of the same model whose circuit is not open, as a
 * refused submission would, or, when there is none, waits for the route's retry time (within its
 * deadline) and tries again. Nothing was sent, so nothing is added to `failed_attempts`.
 */
import type { TaskRecord } from "../../task-record/record";
import { StepLog, type StepResult } from "../../task-record/step-effects";

/** How long a task waits for a half-open route whose probe another task holds. */
export const PROBE_WAIT_MS = 5_000;

export function routeUnhealthy(
  rec: TaskRecord,
  input: { next: number | null; retry_at: number | null; now: number },
): StepResult {
  const log = new StepLog(rec);
  const from = rec.route.provider;
  const next = input.next === null ? undefined : rec.routes[input.next];
  if (input.next !== null && next) {
    return log
      .event("provider_failover", {
        from,
        to: next.provider,
        code: "route_unhealthy",
        message: `${from} is failing for every caller (its circuit is open)`,
      })
      .save({
        ...rec,
        route_index: input.next,
        route: next,
        submit_attempts: 0,
        submitting: null,
        route_uncertain: false,
        next_poll_at: input.now,
        progress: {
          ...rec.progress,
          stage: "queued",
          message: `Moving to ${next.provider}: ${from} is failing for every caller`,
        },
      })
      .done(false);
  }
  const until = Math.max(input.retry_at ?? 0, input.now + PROBE_WAIT_MS);
  return log
    .save({
      ...rec,
      next_poll_at: until,
      progress: { ...rec.progress, stage: "queued", message: `Waiting for ${from} to recover` },
    })
    .done(true);
}
