/** Canceling a batch: its queued items at once, its running tasks asked to stop. */
import type { Env } from "../../env";
import { taskStub } from "../../tasks/task-stub";
import { type BatchRow, ITEM_ENDS } from "../batch-record";
import type { BatchStore } from "../batch-store";
import { itemEndOf } from "../item-end";
import { recordEnd } from "./item-ends";

/** Marks the batch canceling and asks each running task to stop; a task whose provider cannot stop it finishes and is kept. */
export async function cancelBatch(env: Env, store: BatchStore, b: BatchRow): Promise<void> {
  const now = new Date().toISOString();
  store.transaction(() => {
    if (!b.cancel_requested_at)
      store.sql.exec("UPDATE batch SET cancel_requested_at = ?, status = 'canceling' WHERE id = 1", now);
    cancelQueued(store, {
      code: "canceled",
      message: "The batch was canceled before this item started.",
      details: { reason: "batch_canceled" },
    });
  });
  const running = store.sql.exec<{ task_id: string }>("SELECT task_id FROM items WHERE status = 'running'").toArray();
  const taskScope = { tenant_id: b.tenant_id, mode: b.mode };
  await Promise.all(
    running.map(async ({ task_id }) => {
      const result = await taskStub(env, task_id)
        .cancel(taskScope, "batch canceled")
        .catch(() => null);
      if (result && result.kind !== "not_found" && ITEM_ENDS.has(result.envelope.status))
        recordEnd(store, task_id, itemEndOf(result.envelope));
    }),
  );
  await store.wake();
}

function cancelQueued(store: BatchStore, error: Record<string, unknown>, limit?: number): void {
  store.sql.exec(
    `UPDATE items SET status = 'canceled', error = ?, ended_at = ? WHERE seq IN (SELECT seq FROM items WHERE status = 'queued' ORDER BY seq ${limit ? `LIMIT ${limit}` : ""})`,
    JSON.stringify(error),
    new Date().toISOString(),
  );
  store.tally("queued", "canceled", store.changes());
}
