/**
 * A task's provider attempts as the request log shows them (docs/request-log.md, "Attempts"): read
 * from what the task already keeps — its execution log's submissions and its failed submissions —
 * so they follow the task as it goes on (failovers, a stalled job moved, the deadline) at no cost
 * to the task itself.
 */
import type { Attempt, AttemptOutcome } from "../request-log/entry";
import type { TaskRecord } from "../task-record/record";

export interface TimedEvent {
  at: string;
  kind: string;
  detail: unknown;
}

/** A failed submission's outcome: the upstream refused it (a limit, capacity), timed out, or failed. */
function failureOutcome(code: string): AttemptOutcome {
  if (code.includes("timeout")) return "timeout";
  if (code === "model_rate_limited" || code === "model_overloaded" || code === "provider_key_rejected") return "refused";
  return "failed";
}

function since(startedAt: string, at: string | null): number | null {
  if (at === null) return null;
  return Math.max(0, Date.parse(at) - Date.parse(startedAt));
}

export function taskAttempts(rec: TaskRecord, events: TimedEvent[]): Attempt[] {
  const attempts: Attempt[] = [];
  let open: Attempt | null = null;
  let routeIndex = 0;
  const close = (outcome: AttemptOutcome, at: string | null, error: Attempt["error"]) => {
    if (!open) return;
    open.outcome = outcome;
    open.duration_ms = since(open.started_at, at);
    open.error = error;
    open = null;
  };
  // Submissions come from the execution log, failures from the record: one time line of both.
  const failures = [...(rec.route_failures ?? [])];
  const timeline = [...events.map((e) => ({ at: e.at, event: e })), ...failures.map((f) => ({ at: f.at, failure: f }))].sort(
    (a, b) => Date.parse(a.at) - Date.parse(b.at),
  );
  for (const item of timeline) {
    if ("failure" in item && item.failure) {
      close(failureOutcome(item.failure.code), item.at, { code: item.failure.code, message: item.failure.message });
      continue;
    }
    const e = (item as { event: TimedEvent }).event;
    if (e.kind === "provider_submit") {
      const provider = (e.detail as { provider?: string } | null)?.provider ?? rec.route.provider;
      const found = rec.routes.findIndex((r, i) => i >= routeIndex && r.provider === provider);
      if (found >= 0) routeIndex = found;
      const route = rec.routes[routeIndex] ?? rec.route;
      // A submission whose answer was lost (a crash) and that is sent again: the first has no answer.
      close("timeout", e.at, null);
      open = {
        provider,
        upstream_model: route.upstream_model,
        key: route.key === "tenant" ? "tenant" : "platform",
        started_at: e.at,
        duration_ms: null,
        outcome: "accepted",
        http_status: null,
        error: null,
      };
      attempts.push(open);
    } else if (e.kind === "provider_stall_cancel" || e.kind === "provider_stall_stopped") {
      close("timeout", e.at, { code: "provider_stalled", message: "The job showed no progress and was moved to another route." });
    }
  }
  if (open) {
    if (rec.status === "succeeded") close("succeeded", rec.completed_at, null);
    else if (rec.status === "failed" || rec.status === "canceled") {
      const code = rec.error?.code ?? rec.status;
      close(code === "model_timeout" ? "timeout" : "failed", rec.completed_at, {
        code,
        message: rec.error?.message ?? rec.status,
      });
    } else if (rec.provider_handle === null && rec.submitting === null) close("failed", null, null);
  }
  return attempts;
}

/** What a task tells the request log: its attempts (its charge comes from the ledger). */
export function taskLogView(rec: TaskRecord, events: TimedEvent[]) {
  return { attempts: taskAttempts(rec, events) };
}

export type TaskLogView = ReturnType<typeof taskLogView>;
