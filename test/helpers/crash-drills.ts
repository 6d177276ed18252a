/**
 * Crash drills, for tests only: with them on, a task whose metadata says `drill_crash_after: <point>`
 * crashes its object once at that recovery point (src/tasks/faults.ts). The tests run in the same
 * isolate as the objects, so the hook they install is the one the objects ask.
 */
import { afterAll, beforeAll } from "vitest";
import { setFaultHook } from "../../src/tasks/faults";
import { drillFromMetadata } from "./metadata-drill";

/** Turns the drills on for the test file that calls it. */
export function useCrashDrills(): void {
  beforeAll(() => setFaultHook(drillFromMetadata));
  afterAll(() => setFaultHook(null));
}
