/** Asking the provider how the job is doing, until it is done or failed. */
import { providerMessage } from "../../providers/messages";
import type { PollResult, ProviderError } from "../../providers/types";
import type { TaskRecord } from "../../task-record/record";
import { StepLog, type StepResult } from "../../task-record/step-effects";
import { etaSeconds } from "./eta";
import { failOrNextModel } from "./model-fallback";
import { backoff } from "./outcome";
import { stallConfirmRead, stalledEvent, watchActivity } from "./stall";

/** Consecutive status answers in an undocumented shape before the task gives up on the job. */
export const MALFORMED_POLLS = 5;

/**
 * A failed poll is not a failed job: ask again later, within the deadline. Only an upstream that
 * keeps answering in a shape it does not document is given up on.
 */
export function pollFailed(rec: TaskRecord, pe: ProviderError, now: number, pace = 1): StepResult {
  const malformed_polls = pe.malformed ? rec.malformed_polls + 1 : 0;
  const log = new StepLog(rec);
  if (malformed_polls >= MALFORMED_POLLS) {
    return log
      .save(
        failOrNextModel(
          { ...rec, malformed_polls },
          "model_request_failed",
          `${rec.route.provider} kept sending malformed status answers: ${providerMessage(pe)}`,
          now,
        ),
      )
      .done(false);
  }
  const poll_attempts = rec.poll_attempts + 1;
  return log
    .save({
      ...rec,
      malformed_polls,
      poll_attempts,
      next_poll_at: now + Math.max(pe.retryAfterMs ?? 0, backoff(poll_attempts, pace)),
      progress: { ...rec.progress, message: `Provider status unavailable: ${providerMessage(pe)}` },
    })
    .done(true);
}

/**
 * The provider's answer. `at` is when the poll went out (the task's start, if it started), `now`
 * when its answer came (the next poll counts from it). `measuredP50Ms`: the route's measured median
 * time to completion, for the ETA (eta.ts); null without measurements. `pace`: as backoff's (outcome.ts).
 */
export function pollAnswered(
  rec: TaskRecord,
  result: PollResult,
  time: { at: number; now: number },
  measuredP50Ms: number | null = null,
  pace = 1,
): StepResult {
  // A stalled job whose cancellation was asked: nothing else starts until it is seen to end.
  const confirming = rec.stall?.phase === "confirm" ? stallConfirmRead(rec, result, time.now, pace) : null;
  if (confirming) return confirming;
  const log = new StepLog(rec);
  let cur: TaskRecord = { ...rec, malformed_polls: 0, ...(rec.stall?.phase === "confirm" ? { stall: null } : {}) };
  // The provider has started: the task is running from now. The task list is told after the
  // step's one save, never between two: a cancel may write while that call is awaited, and a
  // save after it would put back the record from before the cancel.
  const started = result.state !== "failed" && result.state !== "queued" && cur.status === "queued";
  if (started) cur = { ...cur, status: "running", started_at: new Date(time.at).toISOString() };
  const saved = (next: TaskRecord) => (started ? log.save(next).index() : log.save(next));
  if (result.state === "queued" || result.state === "running") {
    const poll_attempts = cur.poll_attempts + 1;
    const eta_seconds = etaSeconds(cur, result, time.now, measuredP50Ms);
    const { rec: watched, stalled } = watchActivity(
      {
        ...cur,
        poll_attempts,
        progress: {
          ...result.progress,
          percent: Math.max(cur.progress.percent, Math.min(95, result.progress.percent)),
          ...(eta_seconds === undefined ? {} : { eta_seconds }),
        },
        next_poll_at: time.now + (result.poll_after_ms ?? backoff(poll_attempts, pace)),
      },
      result,
      time.now,
    );
    if (stalled) log.event("provider_stalled", stalledEvent(stalled));
    // A stalled job to move is canceled at once; otherwise the next poll is awaited.
    return saved(watched).done(stalled?.phase !== "cancel");
  }
  if (result.state === "failed")
    return log.save(failOrNextModel(cur, result.error.code, providerMessage(result.error.message), time.now)).done(false);
  // When the job ended at the provider: its attempt ends here and storing the outputs begins (src/tasks/attempts.ts).
  log.event("provider_succeeded", { provider: cur.route.provider });
  return saved({
    ...cur,
    step: "fetch",
    progress: { percent: 96, stage: "storing_outputs", message: "Storing outputs" },
    next_poll_at: null,
  }).done(false);
}

/**
 * A provider's webhook said the job moved: poll now rather than at the next scheduled time. It
 * decides nothing itself, so a forged or stale one costs one early poll at most. Null: it is not
 * this task's job.
 */
export function woken(rec: TaskRecord, provider: string, jobId: string, now: number): StepResult | null {
  if (rec.step !== "poll" || rec.route.provider !== provider || rec.provider_handle?.job_id !== jobId) return null;
  return new StepLog(rec)
    .event("provider_webhook", { provider, job_id: jobId })
    .save({ ...rec, next_poll_at: now })
    .done(false);
}
