/**
 * The Worker's side of a task object's reads that HTTP answers are made of, and `Prefer: wait`:
 * hold the answer until the task is terminal or the wait is over (src/tasks/follow.ts polls).
 */
import { waitForTerminal } from "../tasks/follow";
import { type TaskStatus, TERMINAL } from "../tasks/record";
import type { TaskScope } from "../tasks/scope";
import type { TaskRead } from "../tasks/task-answers";
import type { TaskStub } from "../tasks/task-stub";

export const readTaskJson = (stub: TaskStub, scope: TaskScope) => stub.readJson(scope);
export const readTaskState = (stub: TaskStub, scope: TaskScope) => stub.readState(scope);

/** A signal of the request, or one that never fires where the runtime gives none. */
export function requestSignal(request: Request): AbortSignal {
  return request.signal ?? new AbortController().signal;
}

/**
 * Waits up to `seconds` for a task in `status` to become terminal (not at all when it is already),
 * then reads it as it is. Null when the task is not within `scope`.
 */
export async function readAfterWait(
  stub: TaskStub,
  scope: TaskScope,
  status: TaskStatus,
  seconds: number,
  signal: AbortSignal,
): Promise<TaskRead | null> {
  if (seconds > 0 && !TERMINAL.has(status)) {
    await waitForTerminal(() => readTaskState(stub, scope), { until: Date.now() + seconds * 1000, signal });
  }
  return readTaskJson(stub, scope);
}
