/**
 * A task's `progress.eta_seconds`, from its card's `timing.typical_seconds` (a typical job's time
 * from submission to completion): while queued behind others, one typical job for each request
 * ahead and one for its own; otherwise what is left of a typical job since the current job was
 * submitted. Absent past that: a job slower than typical has no honest estimate.
 */
import type { PollResult } from "../../providers/types";
import type { TaskRecord } from "../../task-record/record";

export function etaSeconds(
  rec: TaskRecord,
  result: Extract<PollResult, { state: "queued" | "running" }>,
  now: number,
): number | undefined {
  const typical = rec.card.timing?.typical_seconds;
  if (typical === undefined) return undefined;
  const ahead = result.state === "queued" ? result.progress.queue_position : undefined;
  if (ahead !== undefined && ahead > 0) return typical * (ahead + 1);
  const submitted = rec.provider_handle?.submitted_at ?? now;
  const left = typical - (now - submitted) / 1000;
  return left >= 1 ? Math.ceil(left) : undefined;
}
