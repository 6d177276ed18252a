/**
 * What the request log asks of a task object: its provider attempts as they stand (failovers,
 * stalls, the deadline), for an export's spans. The task object implements it (src/tasks/task-rpc.ts
 * extends it); this is the one place its stub is cast for the log, so the log imports nothing of
 * the tasks.
 */
import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { readObject } from "../lib/object-read";
import type { Remote } from "../lib/remote";
import type { Attempt, LogRow, Stage } from "./entry";

export interface TaskAttemptsSlice {
  attempts(scope: { tenant_id: string; mode: KeyMode | "both" }): { attempts: Attempt[]; stages: Stage[] } | null;
}

/** An entry as an export sends it: a task create's attempts and later stages read from its task. */
export type ExportRow = LogRow & { stages?: Stage[] };

const TASK_ID = /^task_([0-9a-f]{64})$/;
/** Task objects asked at once by one export run. */
const AT_ONCE = 16;

function taskSlice(env: Env, taskId: string): Remote<TaskAttemptsSlice> | null {
  const m = TASK_ID.exec(taskId);
  return m ? (env.TASKS.get(env.TASKS.idFromString(m[1] as string)) as unknown as Remote<TaskAttemptsSlice>) : null;
}

/** The rows with each task create's attempts and stages read from its task (rows without a task, as they are). */
export async function withTaskAttempts(env: Env, tenantId: string, rows: LogRow[]): Promise<ExportRow[]> {
  const out: ExportRow[] = [...rows];
  const todo = out.flatMap((r, i) => (r.task_id && r.status < 300 && !r.attempts ? [i] : []));
  for (let k = 0; k < todo.length; k += AT_ONCE) {
    await Promise.all(
      todo.slice(k, k + AT_ONCE).map(async (i) => {
        const row = out[i] as LogRow;
        const view = await readObject(
          async () => (await taskSlice(env, row.task_id as string)?.attempts({ tenant_id: tenantId, mode: row.mode })) ?? null,
        ).catch(() => null);
        if (view) out[i] = { ...row, attempts: view.attempts, stages: view.stages };
      }),
    );
  }
  return out;
}
