/** The submit step as plain functions: what is stored before the call, and what each answer decides. */
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../../src/providers/types";
import {
  ADOPT_WINDOW_MS,
  adopted,
  awaitLostSubmission,
  beginSubmit,
  MAX_SUBMIT_WAIT_MS,
  providerMissing,
  reconciled,
  reconcileFailed,
  SUBMIT_ATTEMPTS_PER_ROUTE,
  submitFailed,
  submitted,
} from "../../../src/tasks/steps/submit";
import { eventDetail, kinds, saves, T0, task } from "./task";

const handle = { job_id: "job_1", submitted_at: T0 };
const refusal = (opts: ConstructorParameters<typeof ProviderError>[2] = {}) =>
  new ProviderError("model_rate_limited", "busy, try later", { retryable: true, accepted: "no", ...opts });

/** A task after `n` submissions on its current route. */
function afterAttempts(n: number) {
  let rec = task();
  for (let i = 0; i < n; i++) rec = beginSubmit(rec, { now: T0, webhook: false }).rec;
  return rec;
}

describe("submit", () => {
  it("stores the attempt (marked as going out) before the call, and logs it", () => {
    const step = beginSubmit(task(), { now: T0 + 5, webhook: true });
    expect(kinds(step)).toEqual(["save", "event:provider_submit"]);
    expect(step.rec).toMatchObject({
      submit_attempts: 1,
      submitting: { route_index: 0, at: T0 + 5, webhook: true },
      progress: { stage: "submitting", message: "Submitting to first" },
    });
    expect(eventDetail(step, "provider_submit")).toEqual({ provider: "first", attempt: 1 });
  });

  it("stores the upstream's job before anything else, then passes the submit recovery point", () => {
    const step = submitted(afterAttempts(1), handle, T0 + 10);
    expect(kinds(step)).toEqual(["save", "checkpoint:submit"]);
    expect(step.rec).toMatchObject({
      step: "poll",
      provider_handle: handle,
      submitting: null,
      next_poll_at: T0 + 10,
      poll_attempts: 0,
      progress: { percent: 1, stage: "submitted" },
    });
    expect(step.wait).toBe(false);
  });

  it("adopts an earlier submission found by its tag instead of submitting again", () => {
    const step = reconciled(afterAttempts(1), handle, T0);
    expect(kinds(step)).toEqual(["event:provider_reconciled", "save", "checkpoint:submit"]);
    expect(step.rec.provider_handle).toEqual(handle);
    expect(step.rec.submit_attempts).toBe(1);
  });

  it("asks again later when the upstream cannot be asked for an earlier submission", () => {
    const step = reconcileFailed(afterAttempts(1), new Error("connection reset"), T0);
    expect(step.wait).toBe(true);
    expect(step.rec.poll_attempts).toBe(1);
    expect(step.rec.next_poll_at).toBe(T0 + 250);
    expect(step.rec.submitting).not.toBeNull();
  });

  it("takes the job a webhook names for a lost submission", () => {
    const step = adopted(afterAttempts(1), "job_9", { job_id: "job_9", submitted_at: T0 }, T0);
    expect(kinds(step)).toEqual(["event:provider_adopted", "save"]);
    expect(eventDetail(step, "provider_adopted")).toEqual({ provider: "first", job_id: "job_9" });
    expect(step.rec.step).toBe("poll");
  });
});

describe("submit refused", () => {
  it("retries a retryable refusal on the same route with backoff, counting from the answer", () => {
    const step = submitFailed(afterAttempts(1), refusal(), T0 + 100);
    expect(kinds(step)).toEqual(["save"]);
    expect(step.rec).toMatchObject({
      route_index: 0,
      submitting: null,
      next_poll_at: T0 + 100 + 250,
      progress: { stage: "queued", message: "Retrying first after: busy, try later" },
    });
    expect(step.rec.route_failures).toEqual([
      { provider: "first", code: "model_rate_limited", message: "busy, try later", at: new Date(T0 + 100).toISOString() },
    ]);
    expect(step.rec.pending_outcome).toBeNull();
  });

  it("honours the upstream's Retry-After when it is longer than the backoff", () => {
    const step = submitFailed(afterAttempts(1), refusal({ retryAfterMs: 7_000 }), T0);
    expect(step.rec.next_poll_at).toBe(T0 + 7_000);
  });

  it("scales its own backoff by the pace, never the upstream's Retry-After", () => {
    expect(submitFailed(afterAttempts(1), refusal(), T0, 0.2).rec.next_poll_at).toBe(T0 + 50);
    expect(submitFailed(afterAttempts(1), refusal({ retryAfterMs: 1_000 }), T0, 0.2).rec.next_poll_at).toBe(T0 + 1_000);
  });

  it("moves to the model's next route when a route keeps refusing (failover)", () => {
    const step = submitFailed(afterAttempts(SUBMIT_ATTEMPTS_PER_ROUTE), refusal(), T0);
    expect(kinds(step)).toEqual(["event:provider_failover", "save"]);
    expect(eventDetail(step, "provider_failover")).toEqual({
      from: "first",
      to: "second",
      code: "model_rate_limited",
      message: "busy, try later",
    });
    expect(step.rec).toMatchObject({
      route_index: 1,
      route: { provider: "second", upstream_model: "pic-1-alt" },
      submit_attempts: 0,
      submitting: null,
      route_uncertain: false,
      next_poll_at: T0,
      progress: { stage: "queued", message: "Moving to second after: busy, try later" },
    });
    expect(step.rec.route_failures).toHaveLength(1);
  });

  it("moves at once when the route asks to wait longer than a route may", () => {
    const step = submitFailed(afterAttempts(1), refusal({ retryAfterMs: MAX_SUBMIT_WAIT_MS + 1 }), T0);
    expect(step.rec.route_index).toBe(1);
  });

  it("fails on the last route instead of moving", () => {
    const onLast = { ...afterAttempts(SUBMIT_ATTEMPTS_PER_ROUTE), route_index: 1, route: task().routes[1]! };
    const step = submitFailed(onLast, refusal(), T0);
    expect(step.rec).toMatchObject({
      step: "settle",
      pending_outcome: { status: "failed", error: { code: "model_rate_limited", message: "busy, try later" } },
    });
  });

  it("never leaves a route that may have accepted the job: it fails rather than risk running it twice", () => {
    const step = submitFailed(afterAttempts(SUBMIT_ATTEMPTS_PER_ROUTE), refusal({ accepted: "unknown" }), T0);
    expect(step.rec.route_uncertain).toBe(true);
    expect(step.rec.route_index).toBe(0);
    expect(step.rec.submitting).not.toBeNull();
    expect(step.rec.pending_outcome?.status).toBe("failed");
  });

  it("ends the task on a safety refusal: decided failed (then refunded at settlement), never tried elsewhere", () => {
    const step = submitFailed(afterAttempts(1), new ProviderError("safety_rejected", "prompt refused"), T0);
    expect(kinds(step)).toEqual(["save"]);
    expect(step.rec).toMatchObject({
      route_index: 0,
      step: "settle",
      pending_outcome: { status: "failed", error: { code: "safety_rejected", message: "prompt refused" } },
      progress: { stage: "finalizing" },
    });
  });

  it("ends the task on a permanent refusal", () => {
    const step = submitFailed(afterAttempts(1), new ProviderError("invalid_request", "bad size"), T0);
    expect(step.rec.pending_outcome).toEqual({ status: "failed", error: { code: "invalid_request", message: "bad size" } });
  });
});

describe("a provider missing, a submission lost", () => {
  it("moves to the next route when the route's provider is not configured", () => {
    const step = providerMissing(task(), T0);
    expect(step.rec.route.provider).toBe("second");
    expect(eventDetail(step, "provider_failover")).toMatchObject({ code: "model_unavailable" });
  });

  it("fails when no other route is left", () => {
    const step = providerMissing(task({}, { routes: [{ provider: "first", upstream_model: "pic-1" }] }), T0);
    expect(step.rec.pending_outcome?.error).toMatchObject({ code: "model_unavailable" });
  });

  it("waits for the upstream's webhook to name a lost job, within its window and the deadline", () => {
    const lost = beginSubmit(task(), { now: T0, webhook: true }).rec;
    const step = awaitLostSubmission(lost, T0 + 1_000);
    expect(step.wait).toBe(true);
    expect(step.rec.next_poll_at).toBe(Math.min(T0 + ADOPT_WINDOW_MS, Date.parse(lost.deadline_at)));
    // Asked again before then: nothing to write.
    expect(saves(awaitLostSubmission(step.rec, T0 + 2_000))).toEqual([]);
  });

  it("fails (refunded) a lost submission no webhook can name, rather than submit it twice", () => {
    const lost = beginSubmit(task(), { now: T0, webhook: false }).rec;
    const step = awaitLostSubmission(lost, T0 + 1);
    expect(step.wait).toBe(false);
    expect(step.rec.pending_outcome).toMatchObject({ status: "failed", error: { code: "model_request_failed" } });
  });
});
