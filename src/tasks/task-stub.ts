/** The task object behind a public task id (`task_` + the object id in hex). */
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { Envelope } from "./record";

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

/** The caller's task envelope, or null. RPC typing cannot express its free-form parts. */
export async function readTask(env: Env, taskId: string, tenantId: string): Promise<Envelope | null> {
  return (await taskStub(env, taskId).read(tenantId)) as unknown as Envelope | null;
}
