/**
 * Stalled jobs. A job whose upstream reports nothing new (no new status, queue position, log line
 * or message) for longer than its card's stall threshold is stalled. It is canceled at its
 * upstream, where the upstream can cancel, and submitted once to the model's next route; the new
 * job is submitted only once the first has certainly stopped, so two upstream jobs never run for
 * one task, and the task is charged only for the job that serves it. A job its upstream cannot
 * cancel, or with no other route to go to, or on a task that already moved once, is left to
 * finish or to reach the task's deadline.
 */
import { STALL_FLOOR_SECONDS } from "../../catalog/timing";
import { providerMessage } from "../../providers/messages";
import type { PollResult } from "../../providers/types";
import type { StallState, TaskRecord } from "../../task-record/record";
import { StepLog, type StepResult } from "../../task-record/step-effects";
import { failOrNextModel } from "./model-fallback";
import { backoff } from "./outcome";

type Waiting = Extract<PollResult, { state: "queued" | "running" }>;

/** How long a job may show nothing new (ms): the card's threshold, never below the floor; null on cards without timing. */
export function stallAfterMs(rec: TaskRecord): number | null {
  const seconds = rec.card.timing?.stall_after_seconds;
  return seconds === undefined ? null : Math.max(STALL_FLOOR_SECONDS, seconds) * 1000;
}

/**
 * The route a stalled job moves to: the model's next route after the current one, in the order
 * admission fixed. (Where route health is known, this is the one place that picks a healthy one.)
 */
export function stallRouteIndex(rec: TaskRecord): number | null {
  const next = rec.route_index + 1;
  return rec.routes[next] ? next : null;
}

/** What the upstream reported, as compared between polls: its own activity, or the state and what it says. */
function markOf(result: Waiting): string {
  const p = result.progress;
  return result.activity ?? JSON.stringify([result.state, p.stage, p.message, p.queue_position ?? null]);
}

/**
 * A queued or running answer of the current job. `rec` is the record the poll saves: returned
 * with the activity noted, and with the stall when this answer finds the job stalled.
 */
export function watchActivity(rec: TaskRecord, result: Waiting, now: number): { rec: TaskRecord; stalled: StallState | null } {
  const job_id = rec.provider_handle?.job_id ?? "";
  const mark = markOf(result);
  const seen = rec.activity;
  if (!seen || seen.job_id !== job_id || seen.mark !== mark) {
    return { rec: { ...rec, activity: { job_id, mark, at: now } }, stalled: null };
  }
  const limit = stallAfterMs(rec);
  if (rec.stall || limit === null || now - seen.at <= limit) return { rec, stalled: null };
  const reason: StallState["reason"] =
    rec.stall_moves >= 1 ? "moved_once" : stallRouteIndex(rec) === null ? "no_other_route" : undefined;
  const stall: StallState = {
    phase: reason ? "wait" : "cancel",
    provider: rec.route.provider,
    job_id,
    at: new Date(now).toISOString(),
    idle_seconds: Math.round((now - seen.at) / 1000),
    ...(reason ? { reason } : {}),
  };
  // A job to move is canceled at once; one left to its deadline keeps its poll schedule.
  return { rec: { ...rec, stall, ...(reason ? {} : { next_poll_at: now }) }, stalled: stall };
}

/** The execution log's entry for a job found stalled. */
export function stalledEvent(stall: StallState): Record<string, unknown> {
  return {
    provider: stall.provider,
    job_id: stall.job_id,
    idle_seconds: stall.idle_seconds,
    action: stall.phase === "cancel" ? "cancel_and_move" : "wait",
    ...(stall.reason ? { reason: stall.reason } : {}),
  };
}

/**
 * The upstream's answer to the cancellation of a stalled job. Not cancelable: it is left to
 * finish or reach the deadline (an upstream that already finished it shows that at the next poll).
 * Canceled, on an upstream whose answer means the job stopped: moved now. Otherwise the next status
 * read must show the job ended first (`confirm`).
 */
export function stallCancelAnswered(
  rec: TaskRecord,
  answer: "canceled" | "not_cancelable",
  stopsOnAnswer: boolean,
  now: number,
): StepResult {
  const stall = rec.stall as StallState;
  const log = new StepLog(rec).event("provider_stall_cancel", { provider: stall.provider, job_id: stall.job_id, answer });
  if (answer === "not_cancelable") {
    return log.save({ ...rec, stall: { ...stall, phase: "wait", reason: "cannot_cancel" }, next_poll_at: now }).done(false);
  }
  if (stopsOnAnswer) return moveStalled(log, rec, now);
  return log
    .save({
      ...rec,
      stall: { ...stall, phase: "confirm" },
      poll_attempts: 0,
      next_poll_at: now,
      progress: { ...rec.progress, message: `Stopping a job that made no progress at ${stall.provider}` },
    })
    .done(false);
}

/** The cancellation could not be asked (no answer): ask again later, within the deadline. */
export function stallCancelFailed(rec: TaskRecord, error: unknown, now: number, pace = 1): StepResult {
  const poll_attempts = rec.poll_attempts + 1;
  return new StepLog(rec)
    .save({
      ...rec,
      poll_attempts,
      next_poll_at: now + backoff(poll_attempts, pace),
      progress: {
        ...rec.progress,
        message: `Canceling a job that made no progress at ${rec.route.provider}: ${providerMessage(error)}`,
      },
    })
    .done(true);
}

/**
 * A status read after the cancellation was asked (`confirm`). Ended in failure (canceled): the job
 * has stopped, and the task moves. Still queued or running: it has not stopped yet, so nothing
 * else starts; read again later. Succeeded: null, the job finished after all and is kept.
 */
export function stallConfirmRead(rec: TaskRecord, result: PollResult, now: number, pace = 1): StepResult | null {
  const stall = rec.stall as StallState;
  if (result.state === "succeeded") return null;
  const log = new StepLog(rec);
  if (result.state === "failed") {
    return moveStalled(log.event("provider_stall_stopped", { provider: stall.provider, job_id: stall.job_id }), rec, now);
  }
  const poll_attempts = rec.poll_attempts + 1;
  return log
    .save({
      ...rec,
      poll_attempts,
      next_poll_at: now + (result.poll_after_ms ?? backoff(poll_attempts, pace)),
      progress: { ...rec.progress, message: `Waiting for ${stall.provider} to stop a job that made no progress` },
    })
    .done(true);
}

/** The stopped job's task on the model's next route: a submission like any other, its stall recorded as a failed attempt. */
function moveStalled(log: StepLog, rec: TaskRecord, now: number): StepResult {
  const stall = rec.stall as StallState;
  const index = stallRouteIndex(rec);
  const next = index === null ? undefined : rec.routes[index];
  const why = `${stall.provider} showed no progress for ${stall.idle_seconds} s`;
  if (index === null || !next) {
    // The route list is fixed at admission, so this is only a record from elsewhere: end it, refunded.
    return log
      .save(
        failOrNextModel(
          { ...rec, stall: null },
          "model_timeout",
          `${why}; the job was canceled and no other route serves it.`,
          now,
        ),
      )
      .done(false);
  }
  const message = `${why}; the job was canceled there and moved to ${next.provider}.`;
  return log
    .event("provider_failover", { from: stall.provider, to: next.provider, code: "model_timeout", message, reason: "stalled" })
    .save({
      ...rec,
      route_failures: [
        ...rec.route_failures,
        { provider: stall.provider, code: "model_timeout", message, at: new Date(now).toISOString() },
      ],
      route_index: index,
      route: next,
      step: "submit",
      provider_handle: null,
      submitting: null,
      submit_attempts: 0,
      route_uncertain: false,
      poll_attempts: 0,
      malformed_polls: 0,
      activity: null,
      stall: null,
      stall_moves: rec.stall_moves + 1,
      next_poll_at: now,
      progress: { ...rec.progress, stage: "queued", message: `Moving to ${next.provider}: ${why}` },
    })
    .done(false);
}
