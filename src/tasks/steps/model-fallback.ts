/**
 * A task with a `models` list whose model cannot serve at the upstream (after its own routes'
 * failover) moves to the next listed model that fitted at admission, instead of failing. Only
 * provider-side failures move it: what the request itself caused (a safety refusal, input the
 * upstream rejects) would fail on any model, and ends the task as before. Nothing was charged for
 * the failed model; the hold, sized at admission for the dearest listed model, covers the next.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ModelFallback } from "../../routing/models-list";
import type { TaskRecord } from "../../task-record/record";
import { fail } from "./outcome";

/** The failures that are the upstream's, not the request's: a listed model after this one may still serve. */
const PROVIDER_SIDE: ReadonlySet<string> = new Set([
  "model_unavailable",
  "model_request_failed",
  "model_rate_limited",
  "model_timeout",
  "model_output_invalid",
]);

/** The task failed on its model: on the next listed model that can run, or failed as it would be without a list. */
export function failOrNextModel(
  rec: TaskRecord,
  code: ErrorCode,
  message: string,
  now: number,
  details?: Record<string, unknown>,
): TaskRecord {
  const moved = PROVIDER_SIDE.has(code) ? nextModel(rec, message, now) : null;
  return moved ?? fail(rec, code, message, details);
}

function nextModel(rec: TaskRecord, message: string, now: number): TaskRecord | null {
  const alternates = rec.alternates ?? [];
  const at = new Date(now).toISOString();
  const passed: ModelFallback[] = [{ model: rec.resolved_model, reason: "upstream_failed", at, message: message.slice(0, 500) }];
  for (let i = rec.model_index ?? 0; i < alternates.length; i++) {
    const alt = alternates[i];
    if (!alt) break;
    if (alt.failure) {
      passed.push({ model: alt.model, reason: alt.failure.code, at, message: alt.failure.message });
      continue;
    }
    const route = alt.routes[0];
    if (!route) continue;
    return {
      ...rec,
      model_index: i + 1,
      resolved_model: alt.model,
      card: alt.card,
      request: alt.request,
      routes: alt.routes,
      pricing: alt.pricing,
      route_pricing: alt.route_pricing,
      route,
      route_index: 0,
      step: "submit",
      provider_handle: null,
      submit_attempts: 0,
      submitting: null,
      route_uncertain: false,
      malformed_polls: 0,
      activity: null,
      stall: null,
      poll_attempts: 0,
      fetch_attempts: 0,
      next_poll_at: now,
      model_fallbacks: [...(rec.model_fallbacks ?? []), ...passed],
      progress: {
        ...rec.progress,
        message: `Moving to ${alt.model} after ${rec.resolved_model} failed: ${message}`.slice(0, 500),
      },
    };
  }
  return null;
}
