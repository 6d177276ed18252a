/**
 * What a request tells its log entry as it runs: the door opens a note, the services fill in what
 * only they know (the resolved model, the task, what was charged, the provider attempts), and the
 * door writes the entry once the answer is given (src/request-log/record.ts). A note costs a plain
 * object; nothing is written on the request's path.
 */
import type { Attempt } from "./entry";

export interface RequestNote {
  model?: string | null;
  task_id?: string | null;
  batch_id?: string | null;
  /** Decimal credits: a chat call's charge, a task's hold (its final charge is read from the task). */
  charged?: string | null;
  attempts?: Attempt[];
  error_code?: string | null;
  /** Resolves once what the entry says is known (a stream's end and charge); the entry waits for it. */
  settled?: Promise<unknown>;
}

/** Adds an attempt to a note, when there is one. */
export function noteAttempt(note: RequestNote | undefined, attempt: Attempt): void {
  if (!note) return;
  if (note.attempts) note.attempts.push(attempt);
  else note.attempts = [attempt];
}
