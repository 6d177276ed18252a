/**
 * Admission, in two writes: the tenant's account holds the credits (and lists the task) under a
 * short lease, then the task object stores the task and its committed admission in one transaction.
 */
import { accountFor } from "../../accounts/account-stub";
import type { TaskPlan } from "../../task-record/record";
import { learnFeatures } from "../../tenancy/tenant-features";
import type { CreateResult } from "../task-answers";
import type { TaskRunner } from "../task-runner";
import { admissionRecord, RESERVE_GENERATIONS, reservationName } from "./admission";

/** How long an admission's hold on credits lasts unless the task commits (the account then keeps it). */
export const ADMISSION_LEASE_MS = 30_000;

/** Holds the estimate (a settled generation's name moves on to the next), then commits the task. `admitting` follows the hold's name. */
export async function reserveAndCommit(
  runner: TaskRunner,
  ids: { task_id: string; message_id: string },
  input: { request_hash: string; plan: TaskPlan },
  admitting: { reservation_id: string | null },
  now: number,
): Promise<CreateResult> {
  const { plan } = input;
  const account = accountFor(runner.env, plan.tenant_id);
  const index = {
    task_id: ids.task_id,
    created_at: new Date(now).toISOString(),
    status: "queued",
    capability: plan.capability,
    model: plan.resolved_model,
    mode: plan.mode,
  };
  let reserved: Awaited<ReturnType<typeof account.reserve>> | null = null;
  for (let n = 1; n <= RESERVE_GENERATIONS; n++) {
    admitting.reservation_id = reservationName(ids.task_id, input.request_hash, n);
    reserved = await account.reserve(
      admitting.reservation_id,
      plan.estimate,
      { lease_ms: ADMISSION_LEASE_MS, index, ...(plan.key_id ? { key_id: plan.key_id } : {}) },
      true,
    );
    if (!reserved.ok || reserved.settlement.status === "open") break;
  }
  if (!reserved?.ok) {
    if (reserved) {
      const { ok: _ok, ...refusal } = reserved;
      return { kind: "refused", ...refusal };
    }
    throw new Error("no reservation could be held");
  }
  if (reserved.settlement.status !== "open") throw new Error("every reservation generation was already settled");
  learnFeatures(plan.tenant_id, reserved.features);
  await runner.checkpoint("reserve", { task_id: ids.task_id, metadata: plan.metadata });

  const step = admissionRecord(plan, {
    task_id: ids.task_id,
    message_id: ids.message_id,
    reservation: reserved.settlement,
    now,
  });
  runner.store.inTransaction(() => {
    for (const effect of step.effects) runner.write(effect);
    runner.store.sql.exec(
      "INSERT OR REPLACE INTO admission (id, tenant_id, request_hash, state, lease_until, epoch) VALUES (1, ?, ?, 'committed', 0, 1)",
      plan.tenant_id,
      input.request_hash,
    );
  });
  await runner.store.setAlarm(Date.now());
  return { kind: "created", envelope: await runner.present(step.rec) };
}
