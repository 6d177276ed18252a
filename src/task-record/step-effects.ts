/**
 * The task's steps are plain functions: from the stored record and what an outside call answered,
 * the record to store and the effects to carry out, in order. The task object (src/tasks/task-object.ts)
 * interprets them; tests drive the steps directly (test/tasks/steps/*).
 */
import type { TaskRecord } from "./record";

/** Recovery points: each is committed to storage before the outside call that follows it. */
export const CRASH_POINTS = ["reserve", "submit", "store", "capture", "callback"] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export type Effect =
  /** Write this record (every save is a commit point: what a client sees may change with it). */
  | { type: "save"; rec: TaskRecord }
  /** Append to the execution log. */
  | { type: "event"; kind: string; detail?: unknown }
  /** Everything before is committed; a drill may crash the object here. */
  | { type: "checkpoint"; point: CrashPoint }
  /** Tell the tenant's task list the record's status. */
  | { type: "index"; rec: TaskRecord }
  /** Drop the raw upstream answers an adapter staged for this task. */
  | { type: "drop_staging"; task_id: string };

export interface StepResult {
  /** The record after the step (as last saved, or as given when nothing was saved). */
  rec: TaskRecord;
  effects: Effect[];
  /** True: the task now waits (a backoff, the next poll); false: run the next step at once. */
  wait: boolean;
}

/** Builds a step's result: each `save` snapshots the record as it is at that point. */
export class StepLog {
  readonly effects: Effect[] = [];
  constructor(public rec: TaskRecord) {}

  save(next: TaskRecord): this {
    this.rec = next;
    this.effects.push({ type: "save", rec: next });
    return this;
  }

  event(kind: string, detail?: unknown): this {
    this.effects.push(detail === undefined ? { type: "event", kind } : { type: "event", kind, detail });
    return this;
  }

  checkpoint(point: CrashPoint): this {
    this.effects.push({ type: "checkpoint", point });
    return this;
  }

  index(): this {
    this.effects.push({ type: "index", rec: this.rec });
    return this;
  }

  done(wait: boolean): StepResult {
    return { rec: this.rec, effects: this.effects, wait };
  }
}

/** A step that is not due yet (its backoff runs): nothing changes, the task waits. */
export function notDue(rec: TaskRecord, now: number): boolean {
  return !!rec.next_poll_at && rec.next_poll_at > now;
}
