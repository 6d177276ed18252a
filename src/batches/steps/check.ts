/** Reading the tasks of running items whose push is late (a lost push, a restart). */
import type { Env } from "../../env";
import { taskStub } from "../../tasks/task-stub";
import { type BatchRow, ITEM_ENDS } from "../batch-record";
import type { BatchStore } from "../batch-store";
import { itemEndOf } from "../item-end";
import { recordEnd, requeueItem } from "./item-ends";

/** How long a running item may go without its task's push before the batch reads the task itself. */
export const CHECK_AFTER_MS = 30_000;

/** An ended task's end is recorded; an item whose task was never made is queued again. */
export async function checkRunning(env: Env, store: BatchStore, b: BatchRow): Promise<void> {
  const now = Date.now();
  const late = store.sql
    .exec<{ task_id: string; reserved: string; started_at: string }>(
      "SELECT task_id, reserved, started_at FROM items WHERE status = 'running' AND started_at <= ?",
      new Date(now - CHECK_AFTER_MS).toISOString(),
    )
    .toArray();
  const scope = { tenant_id: b.tenant_id, mode: b.mode };
  await Promise.all(
    late.map(async (item) => {
      const envelope = await taskStub(env, item.task_id)
        .read(scope)
        .catch(() => undefined);
      if (envelope === undefined) return;
      if (envelope === null) requeueItem(store, item.task_id);
      else if (ITEM_ENDS.has(envelope.status)) recordEnd(store, item.task_id, itemEndOf(envelope));
    }),
  );
  store.sql.exec("UPDATE batch SET next_check_at = ? WHERE id = 1", now + CHECK_AFTER_MS);
}
