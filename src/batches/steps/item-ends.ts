/** An item's end, its return to the queue, and its hold: each change to an item's money in one transaction with the totals. */
import { dec, fmt } from "../../lib/decimal";
import type { Envelope } from "../../task-record/record";
import { ITEM_ENDS, type ItemEnd, type ItemStatus } from "../batch-record";
import type { BatchStore } from "../batch-store";

/** How long the batch starts nothing after an item ended rate-limited by its upstream, without a Retry-After. */
export const RATE_LIMIT_PAUSE_MS = 10_000;
const RATE_LIMITED = new Set(["model_rate_limited", "rate_limited"]);

/** The pause an item's end asks of the whole batch: its upstream's Retry-After when the error carries one. */
function rateLimitPause(end: ItemEnd): number | null {
  const error = end.error as { code?: string; details?: { retry_after_seconds?: unknown } } | null;
  if (end.status !== "failed" || !error?.code || !RATE_LIMITED.has(error.code)) return null;
  const seconds = error.details?.retry_after_seconds;
  return typeof seconds === "number" && seconds > 0 ? Math.min(seconds * 1000, 3_600_000) : RATE_LIMIT_PAUSE_MS;
}

/** The item of `taskId` takes its end once; false when it had ended already (or is not this batch's). */
export function recordEnd(store: BatchStore, taskId: string, end: ItemEnd): boolean {
  const item = store.sql
    .exec<{ seq: number; status: ItemStatus; reserved: string }>(
      "SELECT seq, status, reserved FROM items WHERE task_id = ?",
      taskId,
    )
    .toArray()[0];
  if (!item || ITEM_ENDS.has(item.status)) return false;
  const b = store.current();
  store.transaction(() => {
    store.sql.exec(
      "UPDATE items SET status = ?, reserved = ?, refunded = ?, error = ?, result = ?, ended_at = ? WHERE seq = ?",
      end.status,
      end.reserved,
      end.refunded,
      end.error ? JSON.stringify(end.error) : null,
      JSON.stringify({ output: end.output, usage: end.usage, billing: end.billing }),
      new Date().toISOString(),
      item.seq,
    );
    store.tally(item.status, end.status);
    // The hold counted at the start becomes what the task held, and its refund is counted.
    const charged = dec(b.charged_credits).minus(item.reserved).plus(end.reserved);
    const refunded = dec(b.refunded_credits).plus(end.refunded);
    store.sql.exec("UPDATE batch SET charged_credits = ?, refunded_credits = ? WHERE id = 1", fmt(charged), fmt(refunded));
    const pause = rateLimitPause(end);
    // An upstream that rate-limits one item would rate-limit the next: the batch as a whole waits.
    if (pause !== null) store.pauseUntil(Date.now() + pause);
  });
  return true;
}

/** An item whose task was never made (its start was cut short): back in the queue, its hold given back. */
export function requeueItem(store: BatchStore, taskId: string): void {
  const item = store.runningItem(taskId);
  if (!item) return;
  const b = store.current();
  store.transaction(() => {
    store.sql.exec(
      "UPDATE items SET status = 'queued', task_id = NULL, reserved = '0', started_at = NULL WHERE seq = ?",
      item.seq,
    );
    store.tally("running", "queued");
    store.sql.exec("UPDATE batch SET charged_credits = ? WHERE id = 1", fmt(dec(b.charged_credits).minus(item.reserved)));
  });
}

/** The task's own hold may differ from the estimate made at the batch's creation (a price changed): count the task's. */
export function adjustHold(store: BatchStore, taskId: string, envelope: Envelope): void {
  const held = envelope.billing.charged_credits;
  const item = store.runningItem(taskId);
  if (!item || dec(item.reserved).eq(held)) return;
  const b = store.current();
  store.transaction(() => {
    store.sql.exec("UPDATE items SET reserved = ? WHERE seq = ?", held, item.seq);
    store.sql.exec(
      "UPDATE batch SET charged_credits = ? WHERE id = 1",
      fmt(dec(b.charged_credits).minus(item.reserved).plus(held)),
    );
  });
}
