/** The task object behind a public task id (`task_` + the object id in hex). */
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { Envelope } from "./record";
import type { TaskScope } from "./scope";
import type { CancelResult } from "./task-object";

export const TASK_ID = /^task_([0-9a-f]{64})$/;

/** The task object behind a public id, or 404 for an id that cannot exist. */
export function taskStub(env: Env, taskId: string) {
  const m = TASK_ID.exec(taskId);
  if (m) {
    try {
      return env.TASKS.get(env.TASKS.idFromString(m[1] as string));
    } catch {
      // not an id of this namespace
    }
  }
  throw new ApiError("task_not_found", `Task '${taskId}' does not exist.`);
}

/** The task envelope if `scope` may see it, or null. RPC typing cannot express its free-form parts. */
export async function readTask(env: Env, taskId: string, scope: TaskScope): Promise<Envelope | null> {
  return (await taskStub(env, taskId).read(scope)) as unknown as Envelope | null;
}

/**
 * Asks a task within `scope` to stop: its envelope afterwards (the final one when it was already
 * terminal); 404 `task_not_found`; 409 `conflict` when a running provider job cannot be stopped.
 */
export async function cancelTask(env: Env, taskId: string, scope: TaskScope, reason: string | null): Promise<Envelope> {
  const result = (await taskStub(env, taskId).cancel(scope, reason)) as unknown as CancelResult;
  if (result.kind === "not_found") throw new ApiError("task_not_found", `Task '${taskId}' does not exist.`);
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
