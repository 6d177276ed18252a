/** Shared by the steps: deciding an outcome, and how long to wait before asking again. */
import type { ErrorCode } from "../../errors/codes";
import { providerMessage } from "../../providers/messages";
import { paced } from "../../providers/pace";
import { ProviderError } from "../../providers/types";
import type { TaskRecord } from "../../task-record/record";

const POLL_DELAYS_MS = [250, 500, 1000, 2000, 3000, 5000, 10000, 15000];

/** The wait before asking the upstream again; `pace` scales it (src/providers/pace.ts). */
export function backoff(attempt: number, pace = 1): number {
  return paced(POLL_DELAYS_MS[Math.min(Math.max(attempt, 1) - 1, POLL_DELAYS_MS.length - 1)] as number, pace);
}

/** Records the outcome; settlement then makes the ledger agree before the status shows it. */
export function decide(rec: TaskRecord, outcome: NonNullable<TaskRecord["pending_outcome"]>): TaskRecord {
  return {
    ...rec,
    pending_outcome: outcome,
    step: "settle",
    progress: { ...rec.progress, stage: "finalizing", message: "Settling" },
  };
}

export function fail(rec: TaskRecord, code: ErrorCode, message: string, details?: Record<string, unknown>): TaskRecord {
  return decide(rec, { status: "failed", error: { code, message: message.slice(0, 2000), ...(details ? { details } : {}) } });
}

/** Whether the task ran out of time (delivery and settlement, already decided, still run). */
export function pastDeadline(rec: TaskRecord, now: number): boolean {
  return rec.step !== "settle" && rec.step !== "deliver" && now >= Date.parse(rec.deadline_at);
}

/** Anything an adapter throws, in the provider vocabulary: an unexpected error may pass, and may have reached the upstream. */
export function asProviderError(e: unknown): ProviderError {
  return e instanceof ProviderError
    ? e
    : new ProviderError("model_request_failed", providerMessage(e), { retryable: true, accepted: "unknown" });
}
