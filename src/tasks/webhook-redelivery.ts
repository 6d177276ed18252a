/**
 * Sending a delivery again, for the objects that hold deliveries (a task, a batch): one more
 * attempt of a delivery (same `webhook-id`), or a recover's requeue of a failed one. The holder
 * passes what it runs: its attempts (`deliver`) and its next alarm (`schedule`).
 */

import { accountFor } from "../accounts/account-stub";
import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import {
  type AttemptRow,
  attemptRows,
  type DeliveryRow,
  deliveryRow,
  type RequeueOutcome,
  rearm,
  requeue,
} from "../webhooks/delivery-rows";
import { reportDeliveries } from "../webhooks/task-deliveries";
import type { TaskStorage } from "./task-storage";

export type DeliveryWithAttempts = DeliveryRow & { attempts: AttemptRow[] };

/** A delivery with every attempt (the delivery log reads it from its holder). */
export function deliveryWithAttempts(sql: SqlStorage, deliveryId: string): DeliveryWithAttempts | null {
  const row = deliveryRow(sql, deliveryId);
  return row ? { ...row, attempts: attemptRows(sql, deliveryId) } : null;
}

export interface DeliveryHolder {
  sql: SqlStorage;
  /** Makes the attempts that are due (with `wait`, the one re-armed now). */
  deliver(): Promise<void>;
  schedule(): Promise<void>;
}

/** One more attempt of an endpoint delivery: now (`wait`) or from the holder's alarm. Null: no such delivery. */
export async function resendEndpointDelivery(
  holder: DeliveryHolder,
  deliveryId: string,
  wait: boolean,
): Promise<DeliveryWithAttempts | null> {
  if (!rearm(holder.sql, deliveryId, Date.now())) return null;
  if (wait) await holder.deliver();
  await holder.schedule();
  return deliveryWithAttempts(holder.sql, deliveryId);
}

/**
 * A task's delivery sent again: an endpoint's re-armed, a callback through the record's own
 * callback state (left alone while an attempt is under way).
 */
export async function resendTaskDelivery(
  store: TaskStorage,
  holder: DeliveryHolder,
  deliveryId: string,
  wait: boolean,
): Promise<DeliveryWithAttempts | null> {
  const row = deliveryRow(store.sql, deliveryId);
  if (!row) return null;
  if (row.target === "callback") {
    const rec = store.load();
    const cb = rec?.callback;
    if (!rec || !cb) return null;
    if (cb.status !== "delivering") store.save({ ...rec, callback: { ...cb, status: "pending", next_attempt_at: null } });
  } else {
    rearm(store.sql, deliveryId, Date.now());
  }
  if (wait) await holder.deliver();
  await holder.schedule();
  return deliveryWithAttempts(store.sql, deliveryId);
}

/**
 * A recover: a failed delivery to an endpoint is due at `atMs`, from the alarm; one still
 * pending (a retry scheduled, an attempt under way) is left alone. The tenant's log is told at
 * once, so the next recover goes on to the deliveries after it. `owner`: the holder's id, tenant
 * and mode, read then (null when it holds nothing yet: the log is not told).
 */
export async function requeueDelivery(
  env: Env,
  holder: DeliveryHolder,
  owner: () => { id: string; tenant_id: string; mode?: KeyMode } | null,
  deliveryId: string,
  atMs: number,
): Promise<RequeueOutcome | null> {
  const outcome = requeue(holder.sql, deliveryId, atMs);
  if (outcome !== "queued") return outcome;
  const o = owner();
  if (o)
    await reportDeliveries({ task_id: o.id, mode: o.mode ?? "live", sql: holder.sql, account: accountFor(env, o.tenant_id) });
  await holder.schedule();
  return outcome;
}
