/** The batch's next alarm: the earliest of what it waits on. */
import { nextWebhookAt } from "../../webhooks/delivery-rows";
import type { BatchStore } from "../batch-store";
import { CHECK_AFTER_MS } from "./check";

/** A free slot's pause, a late push, a callback retry, the output's expiry, a webhook attempt. */
export async function scheduleNext(store: BatchStore): Promise<void> {
  const b = store.row();
  if (!b) return;
  const now = Date.now();
  const times: number[] = [];
  if (b.status === "queued" || b.status === "running" || b.status === "canceling") {
    const c = store.counts();
    if (c.queued > 0 && b.status !== "canceling" && c.running < b.concurrency) times.push(Math.max(now, b.paused_until ?? 0));
    if (c.running > 0) times.push(Math.max(now + 1000, b.next_check_at ?? now + CHECK_AFTER_MS));
  } else {
    if (b.callback_state?.status === "pending") times.push(b.callback_state.next_attempt_at ?? now);
    if (b.output_expires_at && !b.output_expired_at) times.push(Date.parse(b.output_expires_at));
    const hooks = nextWebhookAt(store.sql, now);
    if (hooks !== null) times.push(hooks);
  }
  if (times.length > 0) await store.wake(Math.min(...times));
}
