/**
 * How long a model's jobs take upstream, per interface card: the basis of a task's ETA, of its
 * stall threshold (a job with no progress for longer is moved, src/tasks/steps/stall.ts) and of the
 * shortest `deadline_seconds` a create may set. Durations measured per route may replace them later.
 */
import { z } from "zod";
import type { Capability } from "./capability";
import { deadlineSeconds } from "./default-deadlines";

/** No job counts as stalled before this long without progress, whatever its card says. */
export const STALL_FLOOR_SECONDS = 60;

export const Timing = z
  .object({
    /** Typical seconds from submission to completion on a real route: the ETA's basis. */
    typical_seconds: z.number().int().positive(),
    /** A job that reports no progress for longer than this is stalled (never below STALL_FLOOR_SECONDS). */
    stall_after_seconds: z.number().int().min(STALL_FLOOR_SECONDS),
    /** The shortest `deadline_seconds` a create may ask for. */
    min_deadline_seconds: z.number().int().positive(),
  })
  .strict()
  .refine((t) => t.stall_after_seconds >= t.typical_seconds, {
    message: "stall_after_seconds is below typical_seconds: every ordinary job would count as stalled",
    path: ["stall_after_seconds"],
  })
  .refine((t) => t.min_deadline_seconds >= t.typical_seconds, {
    message: "min_deadline_seconds is below typical_seconds: such a deadline would fail most jobs",
    path: ["min_deadline_seconds"],
  });
export type Timing = z.infer<typeof Timing>;

/** Whether the card's shortest deadline is within the capability's default one (a create that sets none must be able to run). */
export function minimumWithinDefault(capability: Capability, timing: Timing | undefined): boolean {
  return !timing || timing.min_deadline_seconds <= deadlineSeconds(capability);
}
