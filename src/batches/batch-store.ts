/**
 * A batch object's rows: the batch row, its running totals and the statements every step shares.
 * Schema: docs/storage/batch-object.md.
 */
import { inScope, type TaskScope } from "../keys/scope";
import type { BatchCounts, BatchRow, ItemStatus } from "./batch-record";

export class BatchStore {
  constructor(
    readonly sql: SqlStorage,
    private readonly storage: DurableObjectStorage,
  ) {}

  row(): BatchRow | null {
    const r = this.sql.exec<Record<string, string | number | null>>("SELECT * FROM batch WHERE id = 1").toArray()[0];
    if (!r) return null;
    return {
      ...(r as unknown as BatchRow),
      caller: JSON.parse(r.caller as string),
      callback: r.callback === null ? null : JSON.parse(r.callback as string),
      callback_state: r.callback_state === null ? null : JSON.parse(r.callback_state as string),
      metadata: JSON.parse(r.metadata as string),
    };
  }

  /** The row once a step has checked it exists (every step after admission). */
  current(): BatchRow {
    return this.row() as BatchRow;
  }

  /** The running totals on the batch row: a step never counts the items (a batch of 10,000 costs what one of 100 does). */
  counts(b: BatchRow | null = this.row()): BatchCounts {
    return {
      total: b?.n_total ?? 0,
      queued: b?.n_queued ?? 0,
      running: b?.n_running ?? 0,
      succeeded: b?.n_succeeded ?? 0,
      failed: b?.n_failed ?? 0,
      canceled: b?.n_canceled ?? 0,
    };
  }

  /**
   * Moves `n` items from one status to another in the totals (`from` null: new items). Called in
   * the same transaction as the items' own change, so the totals always equal the rows.
   */
  tally(from: ItemStatus | null, to: ItemStatus, n = 1): void {
    if (n === 0) return;
    const out = from ? `n_${from} = n_${from} - ?` : "n_total = n_total + ?";
    this.sql.exec(`UPDATE batch SET ${out}, n_${to} = n_${to} + ? WHERE id = 1`, n, n);
  }

  /** Rows changed by the statement just run. */
  changes(): number {
    return this.sql.exec<{ n: number }>("SELECT changes() AS n").one().n;
  }

  transaction<T>(fn: () => T): T {
    return this.storage.transactionSync(fn);
  }

  /** Runs the alarm at `atMs` (now by default). */
  wake(atMs = Date.now()): Promise<void> {
    return this.storage.setAlarm(atMs);
  }

  /** The batch as `scope` may see it: sealed, and the scope's own. */
  visible(scope: TaskScope): BatchRow | null {
    const b = this.row();
    return b && b.status !== "admitting" && inScope(b, scope) ? b : null;
  }

  /** The running item a task belongs to, with what the batch counted as its hold. */
  runningItem(taskId: string): { seq: number; reserved: string } | undefined {
    return this.sql
      .exec<{ seq: number; reserved: string }>("SELECT seq, reserved FROM items WHERE task_id = ? AND status = 'running'", taskId)
      .toArray()[0];
  }

  /** Keeps the batch from starting items until `untilMs` (a later pause already set is kept). */
  pauseUntil(untilMs: number): void {
    this.sql.exec("UPDATE batch SET paused_until = MAX(COALESCE(paused_until, 0), ?) WHERE id = 1", untilMs);
  }
}
