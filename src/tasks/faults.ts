/**
 * Crash drills: the recovery points where a test may crash the task object, as a real failure would.
 * Nothing in the service sets the hook; a test (which runs in the same isolate as the objects)
 * does, so no configuration of a deployment can reach a drill.
 */
import type { CrashPoint } from "../task-record/step-effects";

/** Whether the object crashes at `point` of this task (once per point: the object remembers it did). */
export type FaultHook = (point: CrashPoint, task: { task_id: string; metadata: Record<string, string> }) => boolean;

let hook: FaultHook | null = null;

/** Installs (or, with null, removes) the hook. Test-only. */
export function setFaultHook(next: FaultHook | null): void {
  hook = next;
}

export function faultAt(point: CrashPoint, task: { task_id: string; metadata: Record<string, string> }): boolean {
  return hook?.(point, task) ?? false;
}
