/**
 * "Deliver again" on a succeeded task: the outputs not yet in its destination (or every output,
 * to another destination the tenant names), one attempt now. The task's outcome and charge do
 * not change; only its `delivery` does.
 */

import type { Env } from "../env";
import type { TaskRecord } from "../task-record/record";
import { accountSlice } from "../tenancy/account-slice";
import type { DestinationsAccountSlice } from "./account-slice";
import { deliverItems } from "./deliver";
import { applyAttempt, type DeliveryState, pendingItems, planItems } from "./delivery";
import type { RedeliverResult } from "./redeliver-result";

export type { RedeliverResult } from "./redeliver-result";

export async function redeliverOutputs(env: Env, rec: TaskRecord, requested: string | null): Promise<RedeliverResult> {
  if (rec.status !== "succeeded" || !Array.isArray(rec.output?.artifacts)) return { kind: "not_succeeded" };
  // Destinations are live resources: a test task's outputs stay in the platform's storage.
  if (rec.mode === "test") return { kind: "test_mode" };
  const account = accountSlice<DestinationsAccountSlice>(env, rec.tenant_id);
  const id = requested ?? rec.delivery?.destination_id ?? (await account.storageDestination(null))?.destination_id ?? null;
  if (id === null) return { kind: "no_destination" };
  const target = await account.openStorageDestination(id);
  if (!target) return { kind: "unknown_destination", destination_id: id };
  const same = rec.delivery?.destination_id === id;
  const prefix = same ? (rec.delivery as DeliveryState).prefix : target.prefix;
  const base: DeliveryState = rec.delivery ?? { destination_id: id, prefix, attempt_count: 0, last_attempt_at: null, items: [] };
  const planned = { ...planItems(rec, base, id, prefix), prefix };
  const pending = pendingItems(planned);
  if (pending.length === 0) return { kind: "ok", delivery: planned };
  const outcomes = await deliverItems(env, target, pending);
  return { kind: "ok", delivery: applyAttempt(planned, outcomes, Date.now(), true) };
}
