/**
 * The outcomes a task object's steps meet, as route outcomes (src/health/outcomes.ts): built from
 * the task record before and after a step, and from the provider's error where there is one.
 * `requested`: the task asked to fail (a drill its provider honours, the adapter's
 * `requestedFailure`), so a failure is the request's whatever its code says.
 */
import type { ProviderError } from "../providers/types";
import type { TaskRecord } from "../task-record/record";
import { type Fault, faultOf, type OutcomeKind, type RouteOutcome } from "./outcomes";
import { recordOutcome } from "./reporter";

function outcome(rec: TaskRecord, kind: OutcomeKind, at: number, extra: Partial<RouteOutcome> = {}): RouteOutcome {
  return {
    provider: rec.route.provider,
    upstream_model: rec.route.upstream_model,
    tenant_id: rec.tenant_id,
    task_id: rec.task_id,
    kind,
    at,
    ...(rec.mode === "test" ? { mode: "test" as const } : {}),
    ...extra,
  };
}

function faultFor(rec: TaskRecord, e: { code: string; upstreamStatus?: number; keyFault?: boolean }, requested: boolean): Fault {
  return requested ? "request" : faultOf(e, { ownKey: rec.route.key === "tenant" });
}

export function submitAccepted(rec: TaskRecord, startedAt: number, now: number): void {
  recordOutcome(outcome(rec, "submit_accepted", now, { latency_ms: now - startedAt }));
}

export function submitRefused(rec: TaskRecord, e: ProviderError, now: number, requested = false): void {
  recordOutcome(
    outcome(rec, "submit_refused", now, {
      code: e.code,
      fault: faultFor(rec, e, requested),
      ...(e.upstreamStatus !== undefined ? { http_status: e.upstreamStatus } : {}),
    }),
  );
}

export function pollError(rec: TaskRecord, e: ProviderError, now: number, requested = false): void {
  recordOutcome(
    outcome(rec, "poll_error", now, {
      code: e.code,
      fault: faultFor(rec, e, requested),
      ...(e.upstreamStatus !== undefined ? { http_status: e.upstreamStatus } : {}),
    }),
  );
}

/**
 * What a poll or fetch step changed: the job's first progress, its outputs stored, or its failure
 * (`output_failed` when it failed while its outputs were being read).
 */
export function stepOutcomes(before: TaskRecord, after: TaskRecord | null, now: number, requested = false): void {
  if (!after || !before.provider_handle || after.route.provider !== before.route.provider) return;
  const since = now - before.provider_handle.submitted_at;
  if (!before.started_at && after.started_at) recordOutcome(outcome(before, "first_progress", now, { duration_ms: since }));
  const decided = !before.pending_outcome ? after.pending_outcome : null;
  if (!decided) return;
  if (decided.status === "succeeded") recordOutcome(outcome(before, "completed", now, { duration_ms: since }));
  else if (decided.status === "failed" && decided.error) {
    const kind = before.step === "fetch" ? "output_failed" : "job_failed";
    recordOutcome(outcome(before, kind, now, { code: decided.error.code, fault: faultFor(before, decided.error, requested) }));
  }
}
