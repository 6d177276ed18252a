/**
 * The task's deadline: the upstream job is stopped where the provider can stop it, then read one
 * last time. An output that arrived is stored and the task succeeds (outputsStored, as any other);
 * only a task with nothing to show fails `model_timeout`, refunded.
 */
import type { ErrorCode } from "../../errors/codes";
import { SAFETY_CODES } from "../../providers/types";
import type { TaskRecord } from "../../task-record/record";
import { StepLog, type StepResult } from "../../task-record/step-effects";
import { fail } from "./outcome";

/** What the provider answered the deadline's cancel: null when nothing was asked (no job, or a finished one). */
export type DeadlineCancel = "canceled" | "not_cancelable" | null;

/**
 * Whether the deadline asks the upstream to stop the job: only a job still running there. One whose
 * result is being fetched has finished (Ark, for one, deletes a finished task's output on a cancel).
 */
export function cancelsAtDeadline(rec: TaskRecord): boolean {
  return rec.step === "poll" && rec.provider_handle !== null;
}

/**
 * The final read found no output. `last` says what it saw (a status, a failure, an unreadable
 * result). A safety outcome is an answer about the content and keeps its own code; anything
 * else is the deadline's `model_timeout`. Both are refunded in full at settlement.
 */
export function deadlineMissed(rec: TaskRecord, read: { cancel: DeadlineCancel; last: string; code?: ErrorCode }): StepResult {
  const log = new StepLog(rec).event("deadline_final_read", {
    cancel: read.cancel,
    last: read.last,
    ...(read.code ? { code: read.code } : {}),
  });
  if (read.code && SAFETY_CODES.has(read.code)) return log.save(fail(rec, read.code, read.last)).done(false);
  const stopped =
    read.cancel === "canceled"
      ? ` ${rec.route.provider} was asked to stop the job.`
      : read.cancel === "not_cancelable"
        ? ` ${rec.route.provider} could not stop the job.`
        : "";
  return log
    .save(
      fail(
        rec,
        "model_timeout",
        `The task did not finish before its deadline (${rec.deadline_at}); the last read found ${read.last}.${stopped}`,
      ),
    )
    .done(false);
}
