/** Admission: once the account holds the credits, the task record the object commits. */

import { plannedDelivery } from "../../destinations/delivery";
import { emptyUsage, type TaskPlan, type TaskRecord } from "../../task-record/record";
import { StepLog, type StepResult } from "../../task-record/step-effects";
import { RECORD_VERSION } from "../record-versions";

/** Fresh holds tried when earlier ones of the same request were already given back. */
export const RESERVE_GENERATIONS = 5;

/**
 * The hold of generation `n`: named by this task and this body, so only a retry of the same
 * request adopts it; one the account already gave back (lease over) is followed by a fresh one.
 */
export function reservationName(taskId: string, requestHash: string, n: number): string {
  return `${taskId}:${requestHash.slice(0, 16)}:${n}`;
}

/** The task as committed at admission, and the log's `reserve` entry. The object writes both with its admission row. */
export function admissionRecord(
  plan: TaskPlan,
  input: { task_id: string; message_id: string; reservation: { task_id: string; reserved: string }; now: number },
): StepResult {
  const { now } = input;
  const rec: TaskRecord = {
    record_version: RECORD_VERSION,
    task_id: input.task_id,
    tenant_id: plan.tenant_id,
    capability: plan.capability,
    model: plan.model,
    resolved_model: plan.resolved_model,
    route: plan.route,
    routes: plan.routes,
    mode: plan.mode,
    card: plan.card,
    request: plan.request,
    input: plan.input,
    metadata: plan.metadata,
    warnings: plan.warnings,
    status: "queued",
    step: "submit",
    progress: { percent: 0, stage: "queued", message: "Waiting to start" },
    change_seq: 1,
    output: null,
    error: null,
    usage: emptyUsage(),
    pricing: plan.pricing,
    billing: { reserved: input.reservation.reserved, captured: "0", refunded: "0", settled: false },
    reservation_id: input.reservation.task_id,
    pending_outcome: null,
    callback: plan.callback
      ? {
          url: plan.callback.url,
          signing_key_id: plan.callback.signing_key_id,
          status: "pending",
          attempt_count: 0,
          delivered_at: null,
          last_error: null,
          next_attempt_at: null,
          message_id: input.message_id,
        }
      : null,
    provider_handle: null,
    route_pricing: plan.route_pricing,
    route_index: 0,
    submit_attempts: 0,
    submitting: null,
    route_uncertain: false,
    route_failures: [],
    malformed_polls: 0,
    activity: null,
    stall: null,
    stall_moves: 0,
    poll_attempts: 0,
    fetch_attempts: 0,
    next_poll_at: null,
    created_at: new Date(now).toISOString(),
    started_at: null,
    deadline_at: new Date(now + plan.deadline_seconds * 1000).toISOString(),
    completed_at: null,
    cancel_requested_at: null,
    cancel_reason: null,
    origin: plan.origin,
    request_id: plan.request_id,
    safety: plan.safety ?? null,
    retention: { days: plan.output_retention_days, expires_at: null, expired_at: null },
    delivery: plannedDelivery(plan.output_destination ?? null),
    ...(plan.batch ? { batch: plan.batch } : {}),
    ...(plan.models
      ? { models: plan.models, alternates: plan.alternates ?? [], model_fallbacks: plan.model_fallbacks ?? [] }
      : {}),
  };
  return new StepLog(rec)
    .save(rec)
    .event("reserve", { amount: plan.estimate, reservation_id: input.reservation.task_id })
    .done(false);
}
