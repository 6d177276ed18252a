/**
 * A batch item's task tells its batch that it ended: pushed from the task object's alarm once the
 * task is terminal (and again on each later run of that alarm; the batch takes an end once), so
 * the batch starts its next item without polling. A push that fails is made good by the batch,
 * which reads a running item's task itself when no push came (BatchObject.checkRunning).
 */
import type { Env } from "../env";
import type { Envelope, TaskRecord } from "../task-record/record";
import { batchStubOf } from "./batch-stub";
import { itemEndOf } from "./item-end";

export async function reportItemEnd(env: Env, rec: TaskRecord, present: () => Promise<Envelope>): Promise<void> {
  if (!rec.batch) return;
  const stub = batchStubOf(env, rec.batch.batch_id);
  if (!stub) return;
  try {
    await stub.itemEnded(rec.task_id, itemEndOf(await present()));
  } catch (e) {
    console.error(
      JSON.stringify({ level: "warn", message: "batch item end not reported", task_id: rec.task_id, error: String(e) }),
    );
  }
}
