/** Callback delivery as plain functions: the attempt counted before it is made, the schedule after. */
import { describe, expect, it } from "vitest";
import type { TaskRecord } from "../../../src/task-record/record";
import { beginCallback, callbackAnswered, callbackDue, nextAlarm } from "../../../src/tasks/steps/callback";
import { decide } from "../../../src/tasks/steps/outcome";
import { settled } from "../../../src/tasks/steps/settle";
import { RETRY_SCHEDULE_MS } from "../../../src/webhooks/callback-delivery";
import { kinds, T0, task } from "./task";

const done = () => settled(decide(task(), { status: "succeeded" }), { reserved: "40", captured: "40", refunded: "0" }, T0).rec;
const cb = (rec: TaskRecord) => rec.callback as NonNullable<TaskRecord["callback"]>;

describe("callback", () => {
  it("is due once the task settled, and not before its next attempt", () => {
    const rec = done();
    expect(callbackDue(rec, T0)).toBe(true);
    expect(callbackDue({ ...rec, callback: { ...cb(rec), next_attempt_at: T0 + 1 } }, T0)).toBe(false);
    expect(callbackDue({ ...rec, callback: { ...cb(rec), status: "delivered" } }, T0)).toBe(false);
    expect(callbackDue({ ...rec, callback: null }, T0)).toBe(false);
  });

  it("counts the attempt and stores it before the recovery point, then logs it", () => {
    const step = beginCallback(done());
    expect(kinds(step)).toEqual(["save", "checkpoint:callback", "event:callback_attempt"]);
    expect(cb(step.rec)).toMatchObject({ status: "delivering", attempt_count: 1, next_attempt_at: null });
  });

  it("records a delivery", () => {
    const step = callbackAnswered(beginCallback(done()).rec, { kind: "delivered" }, T0 + 3);
    expect(cb(step.rec)).toMatchObject({ status: "delivered", delivered_at: new Date(T0 + 3).toISOString(), last_error: null });
  });

  it("schedules a failed attempt's retry on the schedule, or later when the receiver asks", () => {
    const first = callbackAnswered(beginCallback(done()).rec, { kind: "retry", error: "HTTP 503" }, T0);
    expect(cb(first.rec)).toMatchObject({
      status: "pending",
      last_error: "HTTP 503",
      next_attempt_at: T0 + RETRY_SCHEDULE_MS[1]!,
    });
    const second = callbackAnswered(
      beginCallback(first.rec).rec,
      { kind: "retry", error: "HTTP 429", retryAfterMs: 600_000 },
      T0,
    );
    expect(cb(second.rec).next_attempt_at).toBe(T0 + Math.max(RETRY_SCHEDULE_MS[2]!, 600_000));
  });

  it("gives up after the last scheduled attempt, and at once when the receiver says gone", () => {
    let rec = done();
    for (let i = 0; i < RETRY_SCHEDULE_MS.length; i++)
      rec = callbackAnswered(beginCallback(rec).rec, { kind: "retry", error: "HTTP 500" }, T0).rec;
    expect(cb(rec)).toMatchObject({
      status: "failed",
      attempt_count: RETRY_SCHEDULE_MS.length,
      last_error: `HTTP 500; gave up after ${RETRY_SCHEDULE_MS.length} attempts`,
    });
    const gone = callbackAnswered(beginCallback(done()).rec, { kind: "stop", error: "HTTP 410" }, T0);
    expect(cb(gone.rec)).toMatchObject({ status: "failed", last_error: "HTTP 410", attempt_count: 1 });
  });
});

describe("next alarm", () => {
  it("is the next step's time (never past the deadline), then the callback's next attempt, then none", () => {
    const running = { ...task(), next_poll_at: T0 + 5_000 };
    expect(nextAlarm(running, T0)).toBe(T0 + 5_000);
    expect(nextAlarm({ ...running, next_poll_at: Date.parse(running.deadline_at) + 1 }, T0)).toBe(
      Date.parse(running.deadline_at),
    );
    expect(nextAlarm(decide(running, { status: "canceled" }), T0 + 1)).toBe(T0 + 1);
    const settledTask = done();
    expect(nextAlarm(settledTask, T0 + 7)).toBe(T0);
    expect(nextAlarm({ ...settledTask, callback: { ...cb(settledTask), status: "delivered" } }, T0)).toBeNull();
  });
});
