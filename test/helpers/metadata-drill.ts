import type { FaultHook } from "../../src/tasks/faults";

/** The drills' convention: a task whose metadata says `drill_crash_after: <point>` crashes there (once). */
export const drillFromMetadata: FaultHook = (point, task) => task.metadata?.drill_crash_after === point;
