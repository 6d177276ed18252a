/**
 * Following a task from the Worker, for the event stream (GET /v1/tasks/{id}/events) and for
 * `Prefer: wait=N`: the Worker asks the task object for its small state (`readState`) at a short
 * interval that backs off while nothing changes, rather than the object calling out.
 *
 * Why polling: each read is an independent call, so an object that restarts, moves or is evicted
 * between two reads costs nothing (a held RPC stream would break with it and need its own
 * resumption); the object keeps no list of listeners and is not kept awake by them; and the
 * stream's position is the record's own `change_seq`, so any Worker can resume any stream. The
 * cost is bounded: four reads a second at first, then one every two seconds while nothing moves.
 */
import { sleep } from "../lib/sleep";
import { TERMINAL } from "../task-record/record";
import type { TaskState } from "./task-answers";

/** The first interval between reads, used again after every change (changes come in bursts). */
export const FOLLOW_FIRST_DELAY_MS = 250;
/** The interval that a task with no news backs off to. */
export const FOLLOW_MAX_DELAY_MS = 2000;

export interface FollowOptions {
  /** A state already read (it is handled first, without reading again). */
  first?: TaskState;
  /** When to stop following (epoch ms), whatever the task does. */
  until: number;
  signal: AbortSignal;
  /** Each state read, in order; true ends the following. */
  onState(state: TaskState): boolean | Promise<boolean>;
}

/**
 * Reads the task's state until `onState` says enough, `until` passes or the signal aborts, and
 * returns the last state read (null when the task is not, or no longer, the caller's). A failed
 * read (an object restarting) is tried again at the next interval.
 */
export async function followTask(read: () => Promise<TaskState | null>, o: FollowOptions): Promise<TaskState | null> {
  let last: TaskState | null = null;
  let delay = FOLLOW_FIRST_DELAY_MS;
  let next: TaskState | null | undefined = o.first;
  for (;;) {
    if (next === undefined) {
      try {
        next = await read();
      } catch {
        next = undefined;
      }
    }
    if (next === null) return null;
    if (next !== undefined) {
      const changed = last === null || next.seq !== last.seq;
      last = next;
      if (await o.onState(next)) return next;
      delay = changed ? FOLLOW_FIRST_DELAY_MS : Math.min(FOLLOW_MAX_DELAY_MS, Math.round(delay * 1.5));
    } else {
      delay = Math.min(FOLLOW_MAX_DELAY_MS, Math.round(delay * 1.5));
    }
    next = undefined;
    const left = o.until - Date.now();
    if (left <= 0 || o.signal.aborted) return last;
    try {
      await sleep(Math.min(delay, left), o.signal);
    } catch {
      return last;
    }
  }
}

/** Follows until the task is terminal or `until` passes; the last state read. */
export function waitForTerminal(
  read: () => Promise<TaskState | null>,
  o: { first?: TaskState; until: number; signal: AbortSignal },
): Promise<TaskState | null> {
  return followTask(read, { ...o, onState: (s) => TERMINAL.has(s.status) });
}
