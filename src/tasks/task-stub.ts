/**
 * The task object's stubs, typed once: the one place a task stub is cast (src/lib/remote.ts says
 * why). A public task id is `task_` + the object id in hex.
 */

import type { Env } from "../env";
import { taskNotFound } from "../errors/not-found";
import type { KeyMode } from "../keys/api-keys";
import { type TaskScope, taskObjectName } from "../keys/scope";
import { readObject } from "../lib/object-read";
import type { Remote } from "../lib/remote";
import type { Envelope } from "../task-record/record";
import type { TaskRpc } from "./task-rpc";

export type TaskStub = Remote<TaskRpc>;

export const TASK_ID = /^task_([0-9a-f]{64})$/;

/** The task object of an object id in hex; throws when the namespace has no such id. */
export function taskStubOfObjectId(env: Env, hex: string): TaskStub {
  return env.TASKS.get(env.TASKS.idFromString(hex)) as unknown as TaskStub;
}

/** The task object of an Idempotency-Key in a tenant and a key mode: the mode is part of the namespace. */
export function taskObjectFor(env: Env, tenantId: string, mode: KeyMode, idempotencyKey: string): TaskStub {
  return env.TASKS.getByName(taskObjectName(tenantId, mode, idempotencyKey)) as unknown as TaskStub;
}

/** The task object behind a public id, or 404 for an id that cannot exist. */
export function taskStub(env: Env, taskId: string): TaskStub {
  const m = TASK_ID.exec(taskId);
  if (m) {
    try {
      return taskStubOfObjectId(env, m[1] as string);
    } catch {
      // not an id of this namespace
    }
  }
  throw taskNotFound(taskId);
}

/** The task envelope if `scope` may see it, or null (for the domain: doors read through src/services/task-read.ts). */
export async function readTaskEnvelope(env: Env, taskId: string, scope: TaskScope): Promise<Envelope | null> {
  return readObject(() => taskStub(env, taskId).read(scope));
}
