/**
 * The one way a door reads a task: the object's answer as it sent it (the envelope's JSON, its ETag
 * and what the headers need), with the envelope parsed only when a door asks for it. `Prefer: wait`
 * holds the read until the task is terminal or the wait is over (src/tasks/follow.ts polls).
 */
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { taskNotFound } from "../errors/not-found";
import type { TaskScope } from "../keys/scope";
import { readObject } from "../lib/object-read";
import { type Envelope, type TaskStatus, TERMINAL } from "../task-record/record";
import { waitForTerminal } from "../tasks/follow";
import type { TaskRead } from "../tasks/task-answers";
import { taskStub } from "../tasks/task-stub";

/** A task as read: the body as stored and sent, and its envelope, parsed on first use. */
export interface StoredTask extends TaskRead {
  envelope(): Envelope;
}

function stored(read: TaskRead): StoredTask {
  let parsed: Envelope | undefined;
  return {
    ...read,
    envelope: () => {
      parsed ??= JSON.parse(read.body) as Envelope;
      return parsed;
    },
  };
}

/** The task if `scope` may see it; null otherwise, a malformed id included. */
export async function readTask(env: Env, taskId: string, scope: TaskScope): Promise<StoredTask | null> {
  let read: TaskRead | null;
  try {
    read = await readObject(() => taskStub(env, taskId).readJson(scope));
  } catch (e) {
    // An id that no task of this namespace can have reads as one that is not there.
    if (e instanceof ApiError && e.code === "task_not_found") return null;
    throw e;
  }
  return read && stored(read);
}

/** `readTask`, or 404 `task_not_found`. */
export async function readOwnTask(env: Env, taskId: string, scope: TaskScope): Promise<StoredTask> {
  const task = await readTask(env, taskId, scope);
  if (!task) throw taskNotFound(taskId);
  return task;
}

/** What following a task needs, cheaply: its status, progress and change counter. */
export const readTaskState = (env: Env, taskId: string, scope: TaskScope) =>
  readObject(() => taskStub(env, taskId).readState(scope));

/** A signal of the request, or one that never fires where the runtime gives none. */
export function requestSignal(request: Request): AbortSignal {
  return request.signal ?? new AbortController().signal;
}

/**
 * Waits up to `seconds` for a task in `status` to become terminal (not at all when it is already),
 * then reads it as it is. Null when the task is not within `scope`.
 */
export async function readAfterWait(
  env: Env,
  taskId: string,
  scope: TaskScope,
  status: TaskStatus,
  seconds: number,
  signal: AbortSignal,
): Promise<StoredTask | null> {
  if (seconds > 0 && !TERMINAL.has(status)) {
    const stub = taskStub(env, taskId);
    await waitForTerminal(() => stub.readState(scope), { until: Date.now() + seconds * 1000, signal });
  }
  return readTask(env, taskId, scope);
}
