/**
 * Submitting the job to the route's provider: the attempt is written before it goes out, so that
 * a crash leaves `submitting` set and the next run looks for that job instead of starting another.
 */
import { providerMessage } from "../../providers/messages";
import { type ProviderError, type ProviderHandle, SAFETY_CODES } from "../../providers/types";
import type { TaskRecord } from "../../task-record/record";
import { StepLog, type StepResult } from "../../task-record/step-effects";
import { failOrNextModel } from "./model-fallback";
import { backoff, decide, fail } from "./outcome";

/** Attempts on one route before the task moves to the model's next route. */
export const SUBMIT_ATTEMPTS_PER_ROUTE = 3;
/** A route that asks to wait longer than this is treated as failing now. */
export const MAX_SUBMIT_WAIT_MS = 60_000;
/** Clock difference allowed when looking for an earlier submission. */
export const RECONCILE_SLACK_MS = 60_000;
/** How long a lost submission waits for the upstream's webhook to name its job. */
export const ADOPT_WINDOW_MS = 30 * 60_000;

/** The attempt, stored before the call: `webhook` says whether the upstream can name the job to us later. */
export function beginSubmit(rec: TaskRecord, input: { now: number; webhook: boolean }): StepResult {
  const submit_attempts = rec.submit_attempts + 1;
  return new StepLog(rec)
    .save({
      ...rec,
      submit_attempts,
      submitting: { route_index: rec.route_index, at: input.now, webhook: input.webhook },
      progress: { percent: 0, stage: "submitting", message: `Submitting to ${rec.route.provider}` },
    })
    .event("provider_submit", { provider: rec.route.provider, attempt: submit_attempts })
    .done(false);
}

/** The upstream holds the job: its id is written before anything else happens. */
export function accept(rec: TaskRecord, handle: ProviderHandle, now: number): TaskRecord {
  return {
    ...rec,
    provider_handle: handle,
    submitting: null,
    step: "poll",
    progress: { percent: 1, stage: "submitted", message: `Accepted by ${rec.route.provider}` },
    next_poll_at: now,
    poll_attempts: 0,
  };
}

/** The submission's answer: the job is the task's from now on. */
export function submitted(rec: TaskRecord, handle: ProviderHandle, now: number): StepResult {
  return new StepLog(rec)
    .save(accept(rec, handle, now))
    .checkpoint("submit")
    .done(false);
}

/** An earlier attempt whose answer was lost, found at the upstream by its tag. */
export function reconciled(rec: TaskRecord, handle: ProviderHandle, now: number): StepResult {
  return new StepLog(rec)
    .event("provider_reconciled", { provider: rec.route.provider, job_id: handle.job_id })
    .save(accept(rec, handle, now))
    .checkpoint("submit")
    .done(false);
}

/** Asking the upstream for an earlier submission failed: ask again later. */
export function reconcileFailed(rec: TaskRecord, error: unknown, now: number, pace = 1): StepResult {
  const poll_attempts = rec.poll_attempts + 1;
  return new StepLog(rec)
    .save({
      ...rec,
      poll_attempts,
      next_poll_at: now + backoff(poll_attempts, pace),
      progress: {
        ...rec.progress,
        message: `Checking ${rec.route.provider} for an earlier submission: ${providerMessage(error)}`,
      },
    })
    .done(true);
}

/** A webhook names the job of a submission whose answer was lost (awaitLostSubmission). */
export function adopted(rec: TaskRecord, jobId: string, handle: ProviderHandle, now: number): StepResult {
  return new StepLog(rec)
    .event("provider_adopted", { provider: rec.route.provider, job_id: jobId })
    .save(accept(rec, handle, now))
    .done(false);
}

/**
 * A submission failed. Safety refusals and permanent refusals end the task. Retryable ones are
 * tried again on the same route with backoff (Retry-After honoured); when a route keeps refusing
 * (never having accepted the job), the task moves to the model's next route. A route that may
 * have accepted the job (no answer) is never left for another: that could run it twice.
 */
export function submitFailed(rec: TaskRecord, e: ProviderError, now: number, pace = 1): StepResult {
  const message = providerMessage(e);
  // A tenant's own key refused is that tenant's fault, not the route's: marked so route health skips it.
  const keyRejected = rec.route.key === "tenant" && e.keyFault && e.accepted === "no";
  const failed: TaskRecord = {
    ...rec,
    route_failures: [
      ...rec.route_failures,
      {
        provider: rec.route.provider,
        code: e.code,
        message,
        at: new Date(now).toISOString(),
        ...(e.upstreamStatus ? { http_status: e.upstreamStatus } : {}),
        ...(rec.route.key === "tenant" ? { key: "tenant" as const } : {}),
      },
    ],
    ...(e.accepted === "no" ? { submitting: null } : { route_uncertain: true }),
  };
  const log = new StepLog(rec);
  // The kind of failure (src/lib/outbound-cause.ts) goes with the task's error as `details.cause`.
  const details = e.outboundCause ? { cause: e.outboundCause } : undefined;
  if (keyRejected) return tenantKeyRejected(failed, message, now);
  if (SAFETY_CODES.has(e.code) || !e.retryable) return log.save(fail(failed, e.code, message, details)).done(false);
  const wait = Math.max(e.retryAfterMs ?? 0, backoff(failed.submit_attempts, pace));
  const routeExhausted = failed.submit_attempts >= SUBMIT_ATTEMPTS_PER_ROUTE || wait > MAX_SUBMIT_WAIT_MS;
  if (!routeExhausted) {
    return log
      .save({
        ...failed,
        next_poll_at: now + wait,
        progress: { ...failed.progress, stage: "queued", message: `Retrying ${failed.route.provider} after: ${message}` },
      })
      .done(false);
  }
  if (!failed.route_uncertain) {
    const moved = moveToNextRoute(failed, e.code, message, now);
    if (moved) return moved;
  }
  return log.save(failOrNextModel(failed, e.code, message, now, details)).done(false);
}

/**
 * The provider refused the tenant's own key (401, 403, quota): with `only` the task ends, its
 * reason `provider_key_rejected`; otherwise it moves to the next route at once (retrying the same
 * key would be refused again).
 */
function tenantKeyRejected(rec: TaskRecord, message: string, now: number): StepResult {
  const ended = () =>
    new StepLog(rec)
      .save(
        decide(rec, {
          status: "failed",
          error: {
            code: "model_request_failed",
            message: `${rec.route.provider} refused the tenant's own key: ${message}`.slice(0, 2000),
            details: { reason: "provider_key_rejected", provider: rec.route.provider },
          },
        }),
      )
      .done(false);
  if (rec.route.key_mode === "only") return ended();
  return moveToNextRoute(rec, "model_request_failed", message, now) ?? ended();
}

/** Moves to the next configured route of the same model; null when there is none. */
export function moveToNextRoute(rec: TaskRecord, code: string, message: string, now: number): StepResult | null {
  const next = rec.routes[rec.route_index + 1];
  if (!next) return null;
  return new StepLog(rec)
    .event("provider_failover", {
      from: rec.route.provider,
      to: next.provider,
      code,
      message,
      ...(rec.route.key === "tenant" ? { key: "tenant" } : {}),
    })
    .save({
      ...rec,
      route_index: rec.route_index + 1,
      route: next,
      submit_attempts: 0,
      submitting: null,
      route_uncertain: false,
      next_poll_at: now,
      progress: { ...rec.progress, stage: "queued", message: `Moving to ${next.provider} after: ${message}` },
    })
    .done(false);
}

/** The route's provider is not configured here (its credential removed after admission). */
export function providerMissing(rec: TaskRecord, now: number): StepResult {
  // On a tenant's route: its own key was removed, or refused by the provider, since admission.
  const own = rec.route.key === "tenant";
  if (rec.step === "submit") {
    const why = own
      ? `the tenant's ${rec.route.provider} key is removed or invalid.`
      : `${rec.route.provider} is not configured.`;
    const moved = moveToNextRoute(rec, "model_unavailable", why, now);
    if (moved) return moved;
  }
  const message = own
    ? `The tenant's own ${rec.route.provider} key was removed or refused by ${rec.route.provider} while this task needed it.`
    : `Provider ${rec.route.provider} is not available on this deployment.`;
  return new StepLog(rec).save(failOrNextModel(rec, "model_unavailable", message, now)).done(false);
}

/**
 * A submission whose answer never arrived (a crash, a timeout) on an upstream that cannot be asked
 * for it: submitting again could run the job twice. Where the submission carried the task's
 * webhook URL, the upstream's signed webhook names the job (`adopted`) within ADOPT_WINDOW_MS;
 * otherwise, or after that, the task fails, refunded, and may be resubmitted.
 */
export function awaitLostSubmission(rec: TaskRecord, now: number): StepResult {
  const submitting = rec.submitting as NonNullable<TaskRecord["submitting"]>;
  const until = submitting.webhook ? Math.min(submitting.at + ADOPT_WINDOW_MS, Date.parse(rec.deadline_at)) : now;
  const log = new StepLog(rec);
  if (now < until) {
    if (rec.next_poll_at === until) return log.done(true);
    return log
      .save({
        ...rec,
        next_poll_at: until,
        progress: { ...rec.progress, message: `Waiting for ${rec.route.provider} to report an interrupted submission` },
      })
      .done(true);
  }
  return log
    .save(
      fail(
        rec,
        "model_request_failed",
        `The submission to ${rec.route.provider} was interrupted and ${rec.route.provider} cannot be asked whether it ` +
          "took it; rather than risk running it twice, the task ends and nothing is charged. Submit it again with a new Idempotency-Key.",
      ),
    )
    .done(false);
}
