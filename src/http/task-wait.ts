/**
 * The Worker's side of a task object's reads that HTTP answers are made of, and `Prefer: wait`:
 * hold the answer until the task is terminal or the wait is over (src/tasks/follow.ts polls).
 */
import type { Env } from "../env";
import { waitForTerminal } from "../tasks/follow";
import { type TaskStatus, TERMINAL } from "../tasks/record";
import type { TaskRead, TaskState } from "../tasks/task-object";

type TaskStub = ReturnType<Env["TASKS"]["get"]>;

/** RPC typing cannot express these results' parts; they are the object's real answers. */
export const readTaskJson = (stub: TaskStub, tenantId: string) => stub.readJson(tenantId) as unknown as Promise<TaskRead | null>;
export const readTaskState = (stub: TaskStub, tenantId: string) =>
  stub.readState(tenantId) as unknown as Promise<TaskState | null>;

/** A signal of the request, or one that never fires where the runtime gives none. */
export function requestSignal(request: Request): AbortSignal {
  return request.signal ?? new AbortController().signal;
}

/**
 * Waits up to `seconds` for a task in `status` to become terminal (not at all when it is already),
 * then reads it as it is. Null when the task is not the caller's.
 */
export async function readAfterWait(
  stub: TaskStub,
  tenantId: string,
  status: TaskStatus,
  seconds: number,
  signal: AbortSignal,
): Promise<TaskRead | null> {
  if (seconds > 0 && !TERMINAL.has(status)) {
    await waitForTerminal(() => readTaskState(stub, tenantId), { until: Date.now() + seconds * 1000, signal });
  }
  return readTaskJson(stub, tenantId);
}
