/**
 * Delivery of a task's outputs to a storage destination: the state the task record keeps
 * (`delivery`), the `deliver` step's plain functions, and how the envelope shows it. The task
 * decides success when its outputs are stored; it shows that success only once every output is
 * in the destination or the retries are spent. A delivery never fails a task: the tenant paid for
 * the outputs and keeps the service-hosted copies, with the warning `output_delivery_failed`.
 */

import { EXTENSIONS } from "../media/extensions";
import type { DeliveryItem, DeliveryState } from "../task-record/delivery-state";
import type { TaskRecord } from "../task-record/record";
import { StepLog, type StepResult } from "../task-record/step-effects";

export type { DeliveryItem, DeliveryState } from "../task-record/delivery-state";
export { deliveryView, withDeliveries } from "../task-record/delivery-view";

/** Attempts in all for an output whose store answers with a retryable error, and the waits between them. */
export const DELIVERY_ATTEMPTS = 4;
const RETRY_DELAYS_MS = [1000, 2000, 4000];

/** A create's delivery, planned at admission (the destination as it was then). */
export function plannedDelivery(destination: { destination_id: string; prefix: string } | null): DeliveryState | null {
  if (!destination) return null;
  return {
    destination_id: destination.destination_id,
    prefix: destination.prefix,
    attempt_count: 0,
    last_attempt_at: null,
    items: [],
  };
}

/** `<prefix>/<task_id>/<index>.<ext>` (no leading slash when the prefix is empty). */
export function deliveryKey(prefix: string, taskId: string, index: number, contentType: string): string {
  const ext = EXTENSIONS[contentType.split(";")[0]?.trim().toLowerCase() ?? ""] ?? "bin";
  return `${prefix ? `${prefix}/` : ""}${taskId}/${index}.${ext}`;
}

interface ArtifactView {
  artifact_id: string;
  index: number;
  content_type: string;
  bytes: number;
}

function artifactsOf(rec: TaskRecord): ArtifactView[] {
  return ((rec.output?.artifacts as ArtifactView[] | undefined) ?? []).filter((a) => typeof a.artifact_id === "string");
}

/** Pending items for every output of `rec` to `destinationId`, replacing those of an earlier delivery there. */
export function planItems(rec: TaskRecord, state: DeliveryState, destinationId: string, prefix: string): DeliveryState {
  const kept = state.items.filter((i) => i.destination_id !== destinationId || i.status === "delivered");
  const fresh = artifactsOf(rec)
    .filter((a) => !kept.some((i) => i.destination_id === destinationId && i.index === a.index))
    .map(
      (a): DeliveryItem => ({
        destination_id: destinationId,
        index: a.index,
        artifact_id: a.artifact_id,
        key: deliveryKey(prefix, rec.task_id, a.index, a.content_type),
        content_type: a.content_type,
        bytes: a.bytes,
        status: "pending",
        etag: null,
        error: null,
        delivered_at: null,
      }),
    );
  return { ...state, destination_id: destinationId, items: [...kept, ...fresh] };
}

/**
 * Outputs stored and the success decided: when the task delivers, it goes through `deliver`
 * before `settle` (the outcome stays decided: a cancel meanwhile changes nothing).
 */
export function awaitDelivery(rec: TaskRecord): TaskRecord {
  if (!rec.delivery) return rec;
  const delivery = planItems(rec, rec.delivery, rec.delivery.destination_id, rec.delivery.prefix);
  // No stored file (a text answer only): nothing to deliver, and the envelope shows no delivery.
  if (delivery.items.length === 0) return { ...rec, delivery: null };
  return {
    ...rec,
    step: "deliver",
    next_poll_at: null,
    delivery,
    progress: { ...rec.progress, stage: "finalizing", message: "Delivering outputs to the storage destination" },
  };
}

/** What one attempt did to each item it tried (by index and destination). */
export type ItemOutcome =
  | { index: number; ok: true; etag: string | null }
  | { index: number; ok: false; error: string; retryable: boolean };

/** Applies one attempt's outcomes to the items of the current destination. */
export function applyAttempt(state: DeliveryState, outcomes: ItemOutcome[], now: number, final: boolean): DeliveryState {
  const at = new Date(now).toISOString();
  const items = state.items.map((item) => {
    const o = outcomes.find((x) => x.index === item.index);
    if (item.destination_id !== state.destination_id || item.status !== "pending") return item;
    if (!o) return final ? { ...item, status: "failed" as const, error: item.error ?? "not attempted in time" } : item;
    if (o.ok) return { ...item, status: "delivered" as const, etag: o.etag, error: null, delivered_at: at };
    return { ...item, status: !o.retryable || final ? ("failed" as const) : ("pending" as const), error: o.error };
  });
  return { ...state, items, attempt_count: state.attempt_count + 1, last_attempt_at: at };
}

/** The items still to send to the current destination. */
export function pendingItems(state: DeliveryState): DeliveryItem[] {
  return state.items.filter((i) => i.destination_id === state.destination_id && i.status === "pending");
}

/**
 * The `deliver` step after an attempt: done (every item delivered or failed for good) → settle;
 * otherwise wait for the next attempt. Past the deadline, or out of attempts, what is still
 * pending has failed.
 */
export function deliveryAttempted(rec: TaskRecord, outcomes: ItemOutcome[], now: number): StepResult {
  const state = rec.delivery as DeliveryState;
  const final = state.attempt_count + 1 >= DELIVERY_ATTEMPTS || now >= Date.parse(rec.deadline_at);
  const next = applyAttempt(state, outcomes, now, final);
  const log = new StepLog(rec);
  if (pendingItems(next).length > 0) {
    const delay = RETRY_DELAYS_MS[Math.min(next.attempt_count - 1, RETRY_DELAYS_MS.length - 1)] as number;
    return log.save({ ...rec, delivery: next, next_poll_at: now + delay }).done(true);
  }
  const mine = next.items.filter((i) => i.destination_id === next.destination_id);
  return log
    .event("outputs_delivered", {
      destination_id: next.destination_id,
      delivered: mine.filter((i) => i.status === "delivered").length,
      failed: mine.filter((i) => i.status === "failed").length,
    })
    .save({ ...rec, delivery: next, next_poll_at: null, step: "settle" })
    .done(false);
}

/** The destination was deleted (or never opened): every pending item fails at once. */
export function destinationGone(rec: TaskRecord, now: number): StepResult {
  const state = rec.delivery as DeliveryState;
  const outcomes: ItemOutcome[] = pendingItems(state).map((i) => ({
    index: i.index,
    ok: false,
    error: `storage destination ${state.destination_id} no longer exists`,
    retryable: false,
  }));
  return deliveryAttempted(rec, outcomes, now);
}

// ------------------------------------------------------------------ the envelope
