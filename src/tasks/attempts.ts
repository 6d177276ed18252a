/**
 * A task's provider attempts and later stages as the request log shows them (docs/request-log.md,
 * "Attempts" and "Export"): read from what the task already keeps — its execution log's events and
 * its failed submissions — so they follow the task as it goes on (failovers, a stalled job moved,
 * the deadline) at no cost to the task itself.
 */
import type { Attempt, AttemptOutcome, Stage } from "../request-log/entry";
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
  type Item = { at: string; event?: TimedEvent; failure?: (typeof failures)[number] };
  const providerOf = (i: Item) => i.failure?.provider ?? (i.event?.detail as { provider?: string } | null)?.provider;
  const items: Item[] = [...events.map((e) => ({ at: e.at, event: e })), ...failures.map((f) => ({ at: f.at, failure: f }))];
  const timeline = items.sort((a, b) => {
    const d = Date.parse(a.at) - Date.parse(b.at);
    if (d !== 0) return d;
    // A failover sends to the next route in the millisecond the last one failed: a failure belongs
    // to its own provider's submission, so it comes before another provider's submission of the
    // same millisecond, and after its own.
    const af = a.failure !== undefined;
    if (af === (b.failure !== undefined)) return 0;
    const samePair = providerOf(a) === providerOf(b);
    return af ? (samePair ? 1 : -1) : samePair ? -1 : 1;
  });
  for (const item of timeline) {
    if (item.failure) {
      const failed = open as Attempt | null;
      if (failed && item.failure.http_status) failed.http_status = item.failure.http_status;
      close(failureOutcome(item.failure.code), item.at, { code: item.failure.code, message: item.failure.message });
      continue;
    }
    const e = item.event as TimedEvent;
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
    } else if (e.kind === "provider_succeeded") {
      close("succeeded", e.at, null);
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

function stage(
  name: Stage["name"],
  startedAt: string,
  end: { at: string | null; outcome: Stage["outcome"]; error?: string | null },
): Stage {
  return {
    name,
    started_at: startedAt,
    duration_ms: since(startedAt, end.at),
    outcome: end.outcome,
    error: end.error ?? null,
  };
}

/**
 * Storing the outputs of the job that ended at `events[i]`: until its outputs_stored; failed when
 * the task moved on to another model before one (its next job ends with a provider_succeeded of
 * its own) or ended without one; pending while it goes on.
 */
function storing(rec: TaskRecord, events: TimedEvent[], i: number): Stage {
  const from = events[i] as TimedEvent;
  const after = events.find((x, j) => j > i && (x.kind === "outputs_stored" || x.kind === "provider_succeeded"));
  if (after?.kind === "outputs_stored") return stage("store_outputs", from.at, { at: after.at, outcome: "succeeded" });
  if (after) {
    const moved = events.find((x, j) => j > i && x.kind === "provider_submit") ?? after;
    return stage("store_outputs", from.at, {
      at: moved.at,
      outcome: "failed",
      error: "The outputs could not be stored; the task moved on to its next model.",
    });
  }
  if (rec.status === "failed" || rec.status === "canceled")
    return stage("store_outputs", from.at, { at: rec.completed_at, outcome: "failed", error: rec.error?.message ?? rec.status });
  return stage("store_outputs", from.at, { at: null, outcome: "pending" });
}

/**
 * What follows the provider: storing the outputs (from the job's end at the provider to the outputs
 * in storage), delivering them to a storage destination, and each attempt of the task's callback.
 * A stage still under way is `pending`, with no duration yet.
 */
export function taskStages(rec: TaskRecord, events: TimedEvent[]): Stage[] {
  const stages: Stage[] = [];
  const first = (kind: string, after: string) => events.find((e) => e.kind === kind && e.at >= after);
  for (const [i, e] of events.entries()) {
    if (e.kind === "provider_succeeded") {
      stages.push(storing(rec, events, i));
    } else if (e.kind === "outputs_stored" && rec.delivery) {
      const done = first("outputs_delivered", e.at);
      const detail = (done?.detail ?? {}) as { delivered?: number; failed?: number };
      const failedItems = rec.delivery.items.filter((i) => i.status === "failed");
      stages.push(
        done
          ? stage("deliver_outputs", e.at, {
              at: done.at,
              outcome: (detail.failed ?? 0) > 0 ? "failed" : "succeeded",
              error:
                (detail.failed ?? 0) > 0
                  ? `${detail.failed} of ${(detail.failed ?? 0) + (detail.delivered ?? 0)} outputs not delivered: ${failedItems[0]?.error ?? "refused"}`
                  : null,
            })
          : stage("deliver_outputs", e.at, { at: null, outcome: "pending" }),
      );
    } else if (e.kind === "callback_attempt") {
      const n = (e.detail as { attempt?: number } | null)?.attempt;
      const answer = events.find(
        (a) => a.kind === "callback_answered" && a.at >= e.at && (a.detail as { attempt?: number } | null)?.attempt === n,
      );
      const said = (answer?.detail ?? {}) as { outcome?: string; error?: string };
      stages.push(
        answer
          ? stage("deliver_callback", e.at, {
              at: answer.at,
              outcome: said.outcome === "delivered" ? "succeeded" : "failed",
              error: said.error ?? null,
            })
          : rec.callback?.status === "delivered" && rec.callback.attempt_count === n
            ? stage("deliver_callback", e.at, { at: rec.callback.delivered_at, outcome: "succeeded" })
            : stage("deliver_callback", e.at, { at: null, outcome: "pending" }),
      );
    }
  }
  return stages;
}

/** What a task tells the request log: its attempts and later stages (its charge comes from the ledger). */
export function taskLogView(rec: TaskRecord, events: TimedEvent[]) {
  return { attempts: taskAttempts(rec, events), stages: taskStages(rec, events) };
}

export type TaskLogView = ReturnType<typeof taskLogView>;
