/**
 * Stalled jobs as plain steps: when a job counts as stalled (nothing new from its upstream past the
 * card's threshold), what happens then (cancel and move once, or wait to the deadline), and that
 * nothing starts elsewhere until the first job is seen to stop. The ETA a poll shows, from the card.
 */
import { describe, expect, it } from "vitest";
import type { InterfaceFile } from "../../src/catalog/schema";
import type { PollResult } from "../../src/providers/types";
import type { TaskRecord } from "../../src/task-record/record";
import { pollAnswered } from "../../src/tasks/steps/poll";
import { stallAfterMs, stallCancelAnswered, stallCancelFailed } from "../../src/tasks/steps/stall";
import { submitted } from "../../src/tasks/steps/submit";
import { eventDetail, kinds, T0, task } from "../tasks/steps/task";

const timing = { typical_seconds: 30, stall_after_seconds: 180, min_deadline_seconds: 60 };
const card = { timing } as unknown as InterfaceFile;
const STALL_MS = 180_000;

/** A task polling its first route's job, submitted at T0. */
function polling(over: Partial<TaskRecord> = {}, routes?: TaskRecord["routes"]): TaskRecord {
  const rec = task({}, { card, ...(routes ? { routes, route: routes[0] } : {}) });
  return { ...submitted(rec, { job_id: "job_1", submitted_at: T0 }, T0).rec, ...over };
}

const running = (message = "Generating", activity?: string): Extract<PollResult, { state: "running" }> => ({
  state: "running",
  progress: { percent: 50, stage: "generating", message },
  ...(activity ? { activity } : {}),
});

/** Polls `rec` with `result` at `now`. */
const poll = (rec: TaskRecord, result: PollResult, now: number) => pollAnswered(rec, result, { at: now, now });

describe("stall detection", () => {
  it("counts from the last new thing the upstream reported, not from the percent it shows", () => {
    let rec = poll(polling(), running(), T0 + 1000).rec;
    expect(rec.activity).toEqual({ job_id: "job_1", mark: expect.any(String), at: T0 + 1000 });
    // The percent moves (adapters draw it from elapsed time); nothing the upstream said changed.
    rec = poll(rec, { ...running(), progress: { percent: 80, stage: "generating", message: "Generating" } }, T0 + 60_000).rec;
    expect(rec.activity?.at).toBe(T0 + 1000);
    // A new message is progress: the clock starts again.
    rec = poll(rec, running("Step 2 of 4"), T0 + 170_000).rec;
    expect(rec.activity?.at).toBe(T0 + 170_000);
    const quiet = poll(rec, running("Step 2 of 4"), T0 + 170_000 + STALL_MS);
    expect(quiet.rec.stall).toBeNull();
    expect(quiet.wait).toBe(true);
  });

  it("finds the job stalled past the threshold, and asks for its cancellation at once", () => {
    const rec = poll(polling(), running(), T0 + 1000).rec;
    const step = poll(rec, running(), T0 + 1000 + STALL_MS + 1);
    expect(step.rec.stall).toMatchObject({ phase: "cancel", provider: "first", job_id: "job_1", idle_seconds: 180 });
    expect(step.rec.next_poll_at).toBe(T0 + 1000 + STALL_MS + 1);
    expect(step.wait).toBe(false);
    expect(eventDetail(step, "provider_stalled")).toMatchObject({ action: "cancel_and_move", job_id: "job_1" });
  });

  it("uses the adapter's own activity where it gives one", () => {
    let rec = poll(polling(), running("same", "logs:1"), T0).rec;
    rec = poll(rec, running("same", "logs:2"), T0 + STALL_MS).rec;
    expect(rec.stall).toBeNull();
    expect(rec.activity?.at).toBe(T0 + STALL_MS);
  });

  it("never counts a stall below the floor, nor on a card without timing", () => {
    const low = { ...card, timing: { ...timing, stall_after_seconds: 5 } } as InterfaceFile;
    expect(stallAfterMs({ ...polling(), card: low })).toBe(60_000);
    const none = task();
    expect(stallAfterMs(none)).toBeNull();
    const rec = submitted(none, { job_id: "job_1", submitted_at: T0 }, T0).rec;
    const later = poll(poll(rec, running(), T0).rec, running(), T0 + 24 * 3600_000);
    expect(later.rec.stall).toBeNull();
  });

  it("with no other route, or once the task already moved, the job is left to its deadline", () => {
    const only = [{ provider: "first", upstream_model: "pic-1" }];
    const alone = poll(poll(polling({}, only), running(), T0).rec, running(), T0 + STALL_MS + 1);
    expect(alone.rec.stall).toMatchObject({ phase: "wait", reason: "no_other_route" });
    expect(alone.wait).toBe(true);
    expect(kinds(alone)).toEqual(["event:provider_stalled", "save"]);
    // Found once: later polls do not find it again.
    const again = poll(alone.rec, running(), T0 + 3 * STALL_MS);
    expect(kinds(again)).toEqual(["save"]);

    const moved = poll(poll(polling({ stall_moves: 1 }), running(), T0).rec, running(), T0 + STALL_MS + 1);
    expect(moved.rec.stall).toMatchObject({ phase: "wait", reason: "moved_once" });
  });
});

describe("moving a stalled job", () => {
  const stalled = () => poll(poll(polling(), running(), T0).rec, running(), T0 + STALL_MS + 1).rec;

  it("an upstream that cannot cancel: the job is left to finish or reach the deadline", () => {
    const step = stallCancelAnswered(stalled(), "not_cancelable", false, T0 + STALL_MS + 2);
    expect(step.rec.stall).toMatchObject({ phase: "wait", reason: "cannot_cancel" });
    expect(step.rec.step).toBe("poll");
    expect(step.rec.route_index).toBe(0);
    expect(step.rec.provider_handle?.job_id).toBe("job_1");
  });

  it("a cancellation its answer confirms: moved to the next route at once, recorded as a failed attempt", () => {
    const now = T0 + STALL_MS + 2;
    const step = stallCancelAnswered(stalled(), "canceled", true, now);
    expect(kinds(step)).toEqual(["event:provider_stall_cancel", "event:provider_failover", "save"]);
    expect(step.rec).toMatchObject({
      step: "submit",
      route_index: 1,
      route: { provider: "second" },
      provider_handle: null,
      submit_attempts: 0,
      stall: null,
      stall_moves: 1,
      activity: null,
      next_poll_at: now,
    });
    expect(step.rec.route_failures).toEqual([
      {
        provider: "first",
        code: "model_timeout",
        message: expect.stringContaining("no progress for 180 s"),
        at: new Date(now).toISOString(),
      },
    ]);
    expect(eventDetail(step, "provider_failover")).toMatchObject({ from: "first", to: "second", reason: "stalled" });
  });

  it("a cancellation only a status read can confirm: nothing starts until the job is seen to end", () => {
    const asked = stallCancelAnswered(stalled(), "canceled", false, T0 + STALL_MS + 2).rec;
    expect(asked.stall?.phase).toBe("confirm");
    expect(asked.provider_handle?.job_id).toBe("job_1");
    // Still running after the cancel was asked: read again later, still on the first route.
    const still = poll(asked, running(), T0 + STALL_MS + 3);
    expect(still.rec).toMatchObject({ step: "poll", route_index: 0, stall: { phase: "confirm" } });
    expect(still.wait).toBe(true);
    // Ended (canceled is a failure to the adapter): now it moves.
    const ended = poll(
      still.rec,
      { state: "failed", error: { code: "model_request_failed", message: "cancelled" } },
      T0 + STALL_MS + 9,
    );
    expect(ended.rec).toMatchObject({ step: "submit", route_index: 1, stall_moves: 1, pending_outcome: null });
    expect(kinds(ended)).toContain("event:provider_stall_stopped");
  });

  it("a job that finishes after all while its cancellation is confirmed is kept, on its own route", () => {
    const asked = stallCancelAnswered(stalled(), "canceled", false, T0 + STALL_MS + 2).rec;
    const done = poll(asked, { state: "succeeded" }, T0 + STALL_MS + 3);
    expect(done.rec).toMatchObject({ step: "fetch", route_index: 0, stall: null, stall_moves: 0 });
    expect(done.rec.provider_handle?.job_id).toBe("job_1");
  });

  it("a cancellation that got no answer is asked again later", () => {
    const rec = stalled();
    const step = stallCancelFailed(rec, new Error("connection reset"), T0 + STALL_MS + 2);
    expect(step.rec.stall?.phase).toBe("cancel");
    expect(step.rec.next_poll_at).toBeGreaterThan(T0 + STALL_MS + 2);
    expect(step.wait).toBe(true);
  });
});

describe("ETA", () => {
  it("while queued behind others, one typical job per request ahead and one for its own", () => {
    const queued: PollResult = {
      state: "queued",
      progress: { percent: 2, stage: "queued", message: "3 ahead", queue_position: 3 },
    };
    const rec = poll(polling(), queued, T0 + 5000).rec;
    expect(rec.progress).toMatchObject({ queue_position: 3, eta_seconds: 4 * timing.typical_seconds });
  });

  it("otherwise what is left of a typical job since submission, and none past it", () => {
    expect(poll(polling(), running(), T0 + 10_000).rec.progress.eta_seconds).toBe(20);
    expect(poll(polling(), running(), T0 + 31_000).rec.progress.eta_seconds).toBeUndefined();
    expect(poll({ ...polling(), card: {} as InterfaceFile }, running(), T0).rec.progress.eta_seconds).toBeUndefined();
  });

  it("from the route's measured median where it has one, in place of the card's figure, never a time already passed", () => {
    const measured = (rec: TaskRecord, result: PollResult, now: number, p50: number | null) =>
      pollAnswered(rec, result, { at: now, now }, p50).rec.progress.eta_seconds;
    expect(measured(polling(), running(), T0 + 1_000, 5_000)).toBe(4);
    expect(measured(polling(), running(), T0 + 4_500, 5_000)).toBeUndefined();
    expect(measured(polling(), running(), T0 + 60_000, 5_000)).toBeUndefined();
    // Without measurements: the card's.
    expect(measured(polling(), running(), T0 + 10_000, null)).toBe(20);
    // A card without timing still gets the measured one.
    expect(measured({ ...polling(), card: {} as InterfaceFile }, running(), T0 + 1_000, 8_000)).toBe(7);
    const queued: PollResult = { state: "queued", progress: { percent: 2, stage: "queued", message: "", queue_position: 2 } };
    expect(measured(polling(), queued, T0, 5_000)).toBe(15);
  });
});
