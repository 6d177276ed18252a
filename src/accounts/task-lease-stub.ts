/**
 * What the ledger's lease sweep asks of a task object: whether it still holds a reservation. The
 * task object implements it (src/tasks/task-rpc.ts extends it); the one place this stub is cast.
 */
import type { Env } from "../env";
import type { Remote } from "../lib/remote";

export interface TaskLeaseSlice {
  holdsReservation(reservationId: string): { holds: "yes" | "admitting" | "no"; committed: boolean };
}

/** The task object of a task id's hex part (`task_<hex>`). */
export function taskLeaseOf(env: Env, hex: string): Remote<TaskLeaseSlice> {
  return env.TASKS.get(env.TASKS.idFromString(hex)) as unknown as Remote<TaskLeaseSlice>;
}
