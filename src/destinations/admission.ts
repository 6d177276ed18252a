/**
 * Which storage destination a task's outputs go to: the create's `output_destination_id` (checked
 * at admission: an unknown one is refused before anything is reserved), else the tenant's default
 * as it is when the outputs are stored — looked up then, off the create's path, so a create that
 * names no destination costs no extra call. Test tasks have none: destinations are live resources
 * (src/keys/mode-scope.ts), so a test create naming one is refused and test outputs stay in
 * the platform's storage.
 */

import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { KeyMode } from "../keys/api-keys";
import { requireLive } from "../keys/mode-scope";
import type { TaskRecord } from "../task-record/record";
import { accountSlice } from "../tenancy/account-slice";
import { knownWithout } from "../tenancy/tenant-features";
import type { DestinationsAccountSlice } from "./account-slice";
import { plannedDelivery } from "./delivery";

export async function outputDestination(
  env: Env,
  caller: { tenant_id: string; mode: KeyMode },
  requested: string | undefined,
): Promise<{ destination_id: string; prefix: string } | null> {
  if (requested === undefined) return null;
  requireLive(caller.mode, "storage_destinations", "/output_destination_id");
  const tenantId = caller.tenant_id;
  const found = await accountSlice<DestinationsAccountSlice>(env, tenantId).storageDestination(requested);
  if (!found) {
    throw new ApiError("invalid_request", `Storage destination '${requested}' does not exist.`, {
      param: "/output_destination_id",
      details: { errors: [{ loc: ["body", "output_destination_id"], reason: "no such storage destination" }] },
    });
  }
  return { destination_id: found.destination_id, prefix: found.prefix };
}

/** The record with its delivery planned: the create's destination, or the tenant's default now (if any). */
export async function withDefaultDestination(env: Env, rec: TaskRecord): Promise<TaskRecord> {
  if (rec.delivery || rec.mode === "test") return rec;
  // The account told this isolate, within the key cache's bound, that the tenant has no default: no call.
  if (knownWithout(rec.tenant_id, "default_destination")) return rec;
  const found = await accountSlice<DestinationsAccountSlice>(env, rec.tenant_id).storageDestination(null);
  return found ? { ...rec, delivery: plannedDelivery(found) } : rec;
}
