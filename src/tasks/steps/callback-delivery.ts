/** One attempt of the task's callback, logged in the tenant's delivery log under the task's terminal event. */
import { accountFor } from "../../accounts/account-stub";
import { policyFrom } from "../../lib/url-policy";
import type { TaskRecord } from "../../task-record/record";
import { attemptDelivery } from "../../webhooks/callback-delivery";
import { callbackAttemptBegun, deliveryIdFor, finishAttempt, recordAttempt, terminalEvent } from "../../webhooks/delivery-rows";
import { reportDeliveries } from "../../webhooks/task-deliveries";
import { beginCallback, callbackAnswered, callbackDue } from "./callback";
import type { StepRunner } from "./step-runner";

export async function deliverCallbackIfDue(runner: StepRunner, rec: TaskRecord, now: number): Promise<void> {
  if (!callbackDue(rec, now)) return;
  const cb = rec.callback as NonNullable<TaskRecord["callback"]>;
  let secrets: string[] | undefined;
  if (cb.signing_key_id) {
    // Two secrets while the key's rotation overlap runs: both signatures are sent.
    const key = await accountFor(runner.env, rec.tenant_id).signingKey(cb.signing_key_id);
    secrets = key?.secrets;
  }
  const begun = beginCallback(rec);
  await runner.apply(begun);
  const attempt = begun.rec.callback as NonNullable<TaskRecord["callback"]>;
  // The callback's attempts are in the tenant's delivery log too, under the task's terminal event.
  const event = terminalEvent(runner.store.sql);
  const deliveryId = event ? await deliveryIdFor(event.event_id, "callback") : null;
  const attemptedAt = new Date().toISOString();
  if (event && deliveryId) {
    callbackAttemptBegun(runner.store.sql, {
      delivery_id: deliveryId,
      event_id: event.event_id,
      attempt: attempt.attempt_count,
      now: attemptedAt,
    });
  }
  // The final envelope, as a read shows it (signed output URLs included); its callback state shows the attempt.
  const body = JSON.stringify(await runner.present(begun.rec));
  const outcome = await attemptDelivery({
    url: attempt.url,
    messageId: attempt.message_id,
    body,
    secrets,
    policy: policyFrom(runner.env),
    nowMs: Date.now(),
  });
  const answered = callbackAnswered(runner.store.load() as TaskRecord, outcome, Date.now());
  await runner.apply(answered);
  if (deliveryId) {
    const after = answered.rec.callback as NonNullable<TaskRecord["callback"]>;
    const detail = outcome.detail ?? { http_status: null, duration_ms: 0, location: null, response_excerpt: null };
    const error = outcome.kind === "delivered" ? null : outcome.error;
    recordAttempt(runner.store.sql, {
      delivery_id: deliveryId,
      attempt: attempt.attempt_count,
      attempted_at: attemptedAt,
      error,
      ...detail,
    });
    const at = new Date().toISOString();
    finishAttempt(
      runner.store.sql,
      deliveryId,
      after.status === "delivered"
        ? { status: "succeeded", error: null, at }
        : after.status === "failed"
          ? { status: "failed", error: after.last_error, at }
          : { status: "pending", error: after.last_error ?? "", nextAt: after.next_attempt_at ?? Date.now() },
    );
    await reportDeliveries({
      task_id: rec.task_id,
      mode: rec.mode ?? "live",
      sql: runner.store.sql,
      account: accountFor(runner.env, rec.tenant_id),
    });
  }
}
