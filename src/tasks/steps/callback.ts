/** Delivering the callback: each attempt is counted before it is made, retried on the schedule. */

import { type TaskRecord, TERMINAL } from "../../task-record/record";
import { StepLog, type StepResult } from "../../task-record/step-effects";
import { type AttemptOutcome, RETRY_SCHEDULE_MS } from "../../webhooks/callback-delivery";

/** Whether the task has a callback to attempt now. */
export function callbackDue(rec: TaskRecord, now: number): boolean {
  const cb = rec.callback;
  if (!cb || cb.status === "delivered" || cb.status === "failed") return false;
  return cb.next_attempt_at === null || cb.next_attempt_at <= now;
}

/** Count the attempt before making it: a crash mid-attempt still shows it was tried. */
export function beginCallback(rec: TaskRecord): StepResult {
  const cb = rec.callback as NonNullable<TaskRecord["callback"]>;
  const callback = { ...cb, attempt_count: cb.attempt_count + 1, status: "delivering" as const, next_attempt_at: null };
  return new StepLog(rec)
    .save({ ...rec, callback })
    .checkpoint("callback")
    .event("callback_attempt", { attempt: callback.attempt_count, message_id: callback.message_id })
    .done(false);
}

/** The attempt's outcome on the stored record: delivered, given up, or the next attempt scheduled. */
export function callbackAnswered(rec: TaskRecord, outcome: AttemptOutcome, now: number): StepResult {
  const c = { ...(rec.callback as NonNullable<TaskRecord["callback"]>) };
  if (outcome.kind === "delivered") {
    c.status = "delivered";
    c.delivered_at = new Date(now).toISOString();
    c.last_error = null;
  } else if (outcome.kind === "stop" || c.attempt_count >= RETRY_SCHEDULE_MS.length) {
    c.status = "failed";
    c.last_error = outcome.kind === "stop" ? outcome.error : `${outcome.error}; gave up after ${c.attempt_count} attempts`;
  } else {
    c.status = "pending";
    c.last_error = outcome.error;
    const scheduled = RETRY_SCHEDULE_MS[c.attempt_count] as number;
    c.next_attempt_at = now + Math.max(scheduled, outcome.retryAfterMs ?? 0);
  }
  return new StepLog(rec)
    .event("callback_answered", {
      attempt: c.attempt_count,
      outcome: outcome.kind,
      ...(outcome.kind === "delivered" ? {} : { error: outcome.error }),
    })
    .save({ ...rec, callback: c })
    .done(true);
}

/** When the task's alarm should next run: its next step, or its callback's next attempt (null: never). */
export function nextAlarm(rec: TaskRecord, now: number): number | null {
  if (!TERMINAL.has(rec.status)) {
    const at = rec.step === "settle" ? now : (rec.next_poll_at ?? now);
    return Math.min(at, Date.parse(rec.deadline_at));
  }
  if (rec.callback && (rec.callback.status === "pending" || rec.callback.status === "delivering"))
    return rec.callback.next_attempt_at ?? now;
  return null;
}
