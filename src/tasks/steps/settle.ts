/** Settlement: the account captures (success) or releases (anything else), then the status shows the outcome. */
import { dec, fmt } from "../../lib/decimal";
import type { TaskRecord } from "../../task-record/record";
import { StepLog, type StepResult } from "../../task-record/step-effects";

/** What the account answers a capture or a release (null: it holds no such reservation). */
export interface SettlementAnswer {
  reserved: string;
  captured: string;
  refunded: string;
}

/** The ledger agrees: the outcome decided earlier becomes the task's status. `now`: after the account answered. */
export function settled(rec: TaskRecord, settlement: SettlementAnswer | null | undefined, now: number): StepResult {
  const outcome = rec.pending_outcome;
  const log = new StepLog(rec);
  if (!outcome) return log.done(false);
  log.event(outcome.status === "succeeded" ? "capture" : "release", settlement).checkpoint("capture");
  const billing = {
    reserved: settlement?.reserved ?? rec.billing.reserved,
    captured: settlement?.captured ?? "0",
    refunded: settlement?.refunded ?? rec.billing.reserved,
    settled: true,
  };
  let usage = rec.usage;
  if (outcome.status !== "succeeded")
    usage = { ...usage, credits: "0", lines: usage.lines.map((l) => ({ ...l, billed_amount_credits: "0" })) };
  else if (dec(billing.captured).lt(usage.credits)) usage = { ...usage, credits: fmt(dec(billing.captured)) };
  const done: TaskRecord = {
    ...rec,
    billing,
    usage,
    status: outcome.status,
    error: outcome.error ?? null,
    step: "done",
    completed_at: new Date(now).toISOString(),
    pending_outcome: null,
    progress:
      outcome.status === "succeeded"
        ? { percent: 100, stage: "completed", message: "Completed" }
        : {
            percent: rec.progress.percent,
            stage: outcome.status,
            message: outcome.status === "canceled" ? "Canceled" : (outcome.error?.message ?? "Failed"),
          },
    callback: rec.callback ? { ...rec.callback, next_attempt_at: now } : null,
  };
  log.save(done).index();
  // Raw upstream answers an adapter staged (src/providers/openai/staging.ts) are not needed once settled;
  // only a task whose handle names a kept answer has any (an orphan of a crash is the lifecycle rule's).
  if (done.provider_handle?.data?.staging_key) log.effects.push({ type: "drop_staging", task_id: done.task_id });
  return log.done(false);
}
