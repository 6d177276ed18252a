/**
 * A task's `progress.eta_seconds`: a typical job's time from submission to completion, less what
 * the current job has already taken. The typical time is the route's measured median over the last
 * hour (route health's `p50_ms`: from the upstream's acceptance to stored outputs, bucket
 * precision) where it has one, else the card's `timing.typical_seconds`. While queued behind
 * others, one typical job for each request ahead and one for its own. Absent once the job has
 * taken the typical time: an ETA is never a time already passed.
 */
import type { PollResult } from "../../providers/types";
import type { TaskRecord } from "../../task-record/record";

export function etaSeconds(
  rec: TaskRecord,
  result: Extract<PollResult, { state: "queued" | "running" }>,
  now: number,
  /** The route's measured median time to completion (ms); null or absent without measurements. */
  measuredP50Ms?: number | null,
): number | undefined {
  const typical =
    typeof measuredP50Ms === "number" && measuredP50Ms > 0 ? measuredP50Ms / 1000 : rec.card.timing?.typical_seconds;
  if (typical === undefined) return undefined;
  const ahead = result.state === "queued" ? result.progress.queue_position : undefined;
  if (ahead !== undefined && ahead > 0) return Math.ceil(typical * (ahead + 1));
  const submitted = rec.provider_handle?.submitted_at ?? now;
  const left = typical - (now - submitted) / 1000;
  return left >= 1 ? Math.ceil(left) : undefined;
}
