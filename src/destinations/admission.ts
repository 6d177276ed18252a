/**
 * Which storage destination a task's outputs go to: the create's `output_destination_id` (checked
 * at admission: an unknown one is refused before anything is reserved), else the tenant's default
 * as it is when the outputs are stored — looked up then, off the create's path, so a create that
 * names no destination costs no extra call. Test tasks have none: destinations are live resources
 * (src/accounts/mode-scope.ts), so a test create naming one is refused and test outputs stay in
 * the platform's storage.
 */

import { accountFor } from "../accounts/account-stub";
import type { KeyMode } from "../accounts/api-keys";
import { requireLive } from "../accounts/mode-scope";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { TaskRecord } from "../tasks/record";
import { plannedDelivery } from "./delivery";

export async function outputDestination(
  env: Env,
  caller: { tenant_id: string; mode: KeyMode },
  requested: string | undefined,
): Promise<{ destination_id: string; prefix: string } | null> {
  if (requested === undefined) return null;
  requireLive(caller.mode, "storage_destinations", "/output_destination_id");
  const tenantId = caller.tenant_id;
  const found = await accountFor(env, tenantId).storageDestination(requested);
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
  const found = await accountFor(env, rec.tenant_id).storageDestination(null);
  return found ? { ...rec, delivery: plannedDelivery(found) } : rec;
}
