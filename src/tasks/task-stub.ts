/** The task object behind a public task id (`task_` + the object id in hex). */
import type { Env } from "../env";
import { taskNotFound } from "../errors/not-found";
import type { Envelope } from "./record";
import type { TaskScope } from "./scope";
import { type TaskRpc, taskRpc } from "./task-rpc";
export const TASK_ID = /^task_([0-9a-f]{64})$/;

/** The task object behind a public id, or 404 for an id that cannot exist. */
export function taskStub(env: Env, taskId: string): TaskRpc {
  const m = TASK_ID.exec(taskId);
  if (m) {
    try {
      return taskRpc(env.TASKS.get(env.TASKS.idFromString(m[1] as string)));
    } catch {
      // not an id of this namespace
    }
  }
  throw taskNotFound(taskId);
}

/** The task envelope if `scope` may see it, or null. */
export async function readTask(env: Env, taskId: string, scope: TaskScope): Promise<Envelope | null> {
  return taskStub(env, taskId).read(scope);
}
