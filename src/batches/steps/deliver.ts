/** A finished batch's completion: the POST of its envelope to its callback_url, and its event to the webhook endpoints. */
import { accountFor } from "../../accounts/account-stub";
import type { Env } from "../../env";
import { policyFrom } from "../../lib/url-policy";
import { attemptDelivery, RETRY_SCHEDULE_MS } from "../../webhooks/callback-delivery";
import { runTaskWebhooks } from "../../webhooks/task-deliveries";
import type { BatchRow } from "../batch-record";
import type { BatchStore } from "../batch-store";
import { presentBatch } from "../present";

export async function deliverBatch(env: Env, store: BatchStore, b: BatchRow, inFlight: Set<string>): Promise<void> {
  await Promise.all([deliverCallback(env, store, b), deliverWebhooks(env, store, b, inFlight)]);
}

export async function deliverWebhooks(env: Env, store: BatchStore, b: BatchRow, inFlight: Set<string>): Promise<void> {
  await runTaskWebhooks({
    // The delivery log names the batch as the holder of its deliveries (src/services/webhooks.ts).
    task_id: b.batch_id,
    mode: b.mode,
    sql: store.sql,
    account: accountFor(env, b.tenant_id),
    policy: policyFrom(env),
    data: async () => null,
    now: () => Date.now(),
    inFlight,
  });
}

async function deliverCallback(env: Env, store: BatchStore, b: BatchRow): Promise<void> {
  const cb = b.callback_state;
  if (cb?.status !== "pending" || (cb.next_attempt_at ?? 0) > Date.now()) return;
  let secrets: string[] | undefined;
  if (cb.signing_key_id) secrets = (await accountFor(env, b.tenant_id).signingKey(cb.signing_key_id))?.secrets;
  const attempt = cb.attempt_count + 1;
  // Counted before it goes out: a restart mid-attempt makes the next one, never an uncounted one.
  saveCallback(store, { ...cb, attempt_count: attempt, next_attempt_at: Date.now() + (RETRY_SCHEDULE_MS[attempt] ?? 60_000) });
  const body = JSON.stringify(await presentBatch(env, store, store.current()));
  const outcome = await attemptDelivery({
    url: cb.url,
    messageId: cb.message_id,
    body,
    secrets,
    policy: policyFrom(env),
    nowMs: Date.now(),
  });
  const now = Date.now();
  if (outcome.kind === "delivered") {
    saveCallback(store, {
      ...cb,
      attempt_count: attempt,
      status: "delivered",
      next_attempt_at: null,
      delivered_at: new Date(now).toISOString(),
      last_error: null,
    });
  } else if (outcome.kind === "stop" || attempt >= RETRY_SCHEDULE_MS.length) {
    saveCallback(store, { ...cb, attempt_count: attempt, status: "failed", next_attempt_at: null, last_error: outcome.error });
  } else {
    const delay = Math.max(RETRY_SCHEDULE_MS[attempt] ?? 0, outcome.retryAfterMs ?? 0);
    saveCallback(store, { ...cb, attempt_count: attempt, next_attempt_at: now + delay, last_error: outcome.error });
  }
}

function saveCallback(store: BatchStore, state: NonNullable<BatchRow["callback_state"]>): void {
  store.sql.exec("UPDATE batch SET callback_state = ? WHERE id = 1", JSON.stringify(state));
}
