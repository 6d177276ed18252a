/**
 * The task facade every door calls: create, read, list, cancel, follow and wait, each with its
 * audit done here, so that the same act leaves the same trail whichever door it came through.
 */

import type { Caller } from "../accounts/service";
import { recordAudit } from "../audit/audit";
import { type AuditBy, audited } from "../audit/audited";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { taskNotFound } from "../errors/not-found";
import type { KeyMode } from "../keys/api-keys";
import type { TaskScope } from "../keys/scope";
import { readObject } from "../lib/object-read";
import { type Envelope, TERMINAL } from "../task-record/record";
import { admitOperation } from "../tasks/admit";
import { listTaskPage, type TaskListQuery } from "../tasks/listing";
import type { CancelResult } from "../tasks/task-answers";
import { taskObjectFor, taskStub } from "../tasks/task-stub";
import { listBatchTasks } from "./batches";
import type { RequestFrom } from "./contracts/request-from";

export { keyScope, tenantScope } from "../keys/scope";
export type { Envelope, TaskStatus } from "../task-record/record";
export { TASK_STATUSES, TERMINAL } from "../task-record/record";
export type { AdmissionContext } from "../tasks/admit";
export { artifactInScope, deleteArtifactInScope } from "../tasks/artifact-scope";
export { followTask } from "../tasks/follow";
export { requireIdempotencyKey } from "../tasks/idempotency";
export type { TaskListPage, TaskListQuery } from "../tasks/listing";
export type { StoredOutput } from "../tasks/steps/store";
export type { TaskState } from "../tasks/task-answers";
export { readAfterWait, readOwnTask, readTask, readTaskState, requestSignal, type StoredTask } from "./task-read";
export { taskStub };

/** Admits a task; the request's log note learns the task, its model and its hold (its final charge follows the task). */
export async function createTask(...args: Parameters<typeof admitOperation>) {
  const result = await admitOperation(...args);
  const note = args[0].note;
  if (note) {
    note.task_id = result.envelope.task_id;
    note.model = result.envelope.resolved_model;
    // A replayed create charged nothing new: its entry names the task, the first one's holds the charge.
    note.charged = result.replayed ? null : result.envelope.billing.charged_credits;
  }
  return result;
}

/** A page of the tasks within `scope`, newest first: a key's own mode, or both for a console session. */
export function listTasks(env: Env, scope: TaskScope, query: TaskListQuery) {
  if (query.batch_id) return listBatchTasks(env, query.batch_id, scope, query);
  return listTaskPage(env, scope.tenant_id, { ...query, ...(scope.mode === "both" ? {} : { mode: scope.mode }) });
}

/** The task an Idempotency-Key already made in a tenant and key mode, if `scope` may see it. */
export function taskOfKey(env: Env, tenantId: string, mode: KeyMode, key: string, scope: TaskScope): Promise<Envelope | null> {
  return readObject(() => taskObjectFor(env, tenantId, mode, key).read(scope));
}

/**
 * Asks a task within `scope` to stop, and writes `task.cancel` to the tenant's audit log when the
 * request took effect (the task is canceled, or will be once its provider stops). A task already
 * ended otherwise, or one that cannot be stopped, is left as it is and nothing is written.
 */
export async function requestCancel(
  env: Env,
  taskId: string,
  scope: TaskScope,
  reason: string | null,
  by: AuditBy,
): Promise<CancelResult> {
  const result = await taskStub(env, taskId).cancel(scope, reason);
  if (result.kind === "ok" && (result.envelope.status === "canceled" || !TERMINAL.has(result.envelope.status))) {
    await recordAudit(env, scope.tenant_id, audited(by, "task.cancel", taskId));
  }
  return result;
}

/**
 * `requestCancel` as the API answers it: the envelope afterwards (the final one when it was
 * already terminal); 404 `task_not_found`; 409 `conflict` when a running job cannot be stopped.
 */
export async function cancelTask(
  env: Env,
  taskId: string,
  scope: TaskScope,
  reason: string | null,
  by: AuditBy,
): Promise<Envelope> {
  const result = await requestCancel(env, taskId, scope, reason, by);
  if (result.kind === "not_found") throw taskNotFound(taskId);
  if (result.kind === "conflict") {
    throw new ApiError("conflict", "The task is already running at a provider that cannot stop it; it continues.", {
      details: {
        action: "keep_polling",
        task_id: taskId,
        status: result.envelope.status,
        cancel_requested_at: result.envelope.cancel_requested_at,
        recovery: { action: "keep_polling", requires_input_change: false, client_request_id: "same" },
      },
    });
  }
  return result.envelope;
}

/** Who the audit log names for an API caller: the member behind its OAuth grant, else its key. */
export function callerAuditBy(caller: Pick<Caller, "key_id">, from: RequestFrom, actor?: AuditBy["actor"]): AuditBy {
  return { actor: actor ?? { type: "api_key", id: caller.key_id }, ...from };
}

/**
 * `DELETE /v1/tasks/{task_id}/outputs` (and the MCP tool): a terminal task's outputs deleted at
 * once, audited as `task.outputs_delete`; the envelope afterwards, its artifacts shown expired.
 * 404 `task_not_found`; 409 `conflict` while the task has not ended.
 */
export async function deleteTaskOutputs(env: Env, taskId: string, scope: TaskScope, by: AuditBy): Promise<Envelope> {
  const result = await taskStub(env, taskId).deleteOutputs(scope);
  if (result.kind === "not_found") throw taskNotFound(taskId);
  if (result.kind === "conflict") {
    throw new ApiError("conflict", `The task is ${result.envelope.status}: its outputs can be deleted once it has ended.`, {
      details: {
        action: "wait_until_terminal",
        task_id: taskId,
        status: result.envelope.status,
        recovery: { action: "wait_until_terminal", requires_input_change: false, client_request_id: "same" },
      },
    });
  }
  await recordAudit(env, scope.tenant_id, audited(by, "task.outputs_delete", taskId));
  return result.envelope;
}
