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

/**
 * Holds whose tasks committed in this isolate, per tenant, that the account has not been told of:
 * the tenant's next hold carries them (at most MAX_CONFIRM), so that under steady traffic the
 * account's lease sweep finds them settled instead of asking each task object. One lost with its
 * isolate, or with a failed call, is asked about by the sweep as before.
 */
const committed = new Map<string, string[]>();
const MAX_CONFIRM = 200;

function takeCommitted(tenantId: string): string[] {
  const list = committed.get(tenantId);
  if (!list) return [];
  const taken = list.splice(0, MAX_CONFIRM);
  if (list.length === 0) committed.delete(tenantId);
  return taken;
}

function noteCommitted(tenantId: string, reservationId: string): void {
  const list = committed.get(tenantId);
  if (list) list.push(reservationId);
  else committed.set(tenantId, [reservationId]);
}

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
  const confirm = takeCommitted(plan.tenant_id);
  for (let n = 1; n <= RESERVE_GENERATIONS; n++) {
    admitting.reservation_id = reservationName(ids.task_id, input.request_hash, n);
    reserved = await account.reserve(
      admitting.reservation_id,
      plan.estimate,
      {
        lease_ms: ADMISSION_LEASE_MS,
        index,
        ...(plan.key_id ? { key_id: plan.key_id } : {}),
        request_id: plan.request_id,
        ...(n === 1 && confirm.length > 0 ? { confirm } : {}),
      },
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
  noteCommitted(plan.tenant_id, reserved.settlement.task_id);
  await runner.store.setAlarm(Date.now());
  return { kind: "created", envelope: await runner.present(step.rec) };
}
