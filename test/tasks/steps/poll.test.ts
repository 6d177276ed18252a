/** The poll step as plain functions: the provider's answer, or its failure, on the stored task. */
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../../src/providers/types";
import { MALFORMED_POLLS, pollAnswered, pollFailed, woken } from "../../../src/tasks/steps/poll";
import { submitted } from "../../../src/tasks/steps/submit";
import { kinds, saves, T0, task } from "./task";

const polling = () => submitted(task(), { job_id: "job_1", submitted_at: T0 }, T0).rec;

describe("poll", () => {
  it("marks the task running when the provider starts it, with its progress, then tells the task list", () => {
    const step = pollAnswered(
      polling(),
      { state: "running", progress: { percent: 40, stage: "rendering", message: "Rendering" } },
      { at: T0 + 10, now: T0 + 20 },
    );
    // One save, then the call: a save after it would write over a cancel made while it was awaited.
    expect(kinds(step)).toEqual(["save", "index"]);
    const [started] = saves(step);
    expect(started).toMatchObject({
      status: "running",
      started_at: new Date(T0 + 10).toISOString(),
      poll_attempts: 1,
      progress: { percent: 40, stage: "rendering" },
      next_poll_at: T0 + 20 + 250,
    });
    expect(step.effects[1]).toEqual({ type: "index", rec: started });
    expect(step.wait).toBe(true);
  });

  it("a job that finished before it was seen running: the job's end logged, one save (running, storing the outputs), then the task list", () => {
    const step = pollAnswered(polling(), { state: "succeeded" }, { at: T0 + 10, now: T0 + 20 });
    expect(kinds(step)).toEqual(["event:provider_succeeded", "save", "index"]);
    expect(step.rec).toMatchObject({ status: "running", step: "fetch", started_at: new Date(T0 + 10).toISOString() });
    expect(step.effects[2]).toEqual({ type: "index", rec: step.rec });
  });

  it("never shows more than 95% before the outputs are stored, and never goes back", () => {
    const rec = { ...polling(), status: "running" as const, progress: { percent: 50, stage: "x", message: "x" } };
    const up = pollAnswered(rec, { state: "running", progress: { percent: 100, stage: "y", message: "y" } }, { at: T0, now: T0 });
    expect(up.rec.progress.percent).toBe(95);
    const down = pollAnswered(
      rec,
      { state: "running", progress: { percent: 10, stage: "y", message: "y" } },
      { at: T0, now: T0 },
    );
    expect(down.rec.progress.percent).toBe(50);
    expect(kinds(down)).toEqual(["save"]);
  });

  it("follows the provider's own poll interval when it gives one", () => {
    const step = pollAnswered(
      polling(),
      { state: "queued", progress: { percent: 0, stage: "queued", message: "In line" }, poll_after_ms: 4_000 },
      { at: T0, now: T0 + 1 },
    );
    expect(step.rec.status).toBe("queued");
    expect(step.rec.next_poll_at).toBe(T0 + 1 + 4_000);
  });

  it("moves to storing the outputs when the job succeeded", () => {
    const step = pollAnswered(polling(), { state: "succeeded" }, { at: T0, now: T0 });
    expect(step.wait).toBe(false);
    expect(step.rec).toMatchObject({ status: "running", step: "fetch", next_poll_at: null, progress: { percent: 96 } });
  });

  it("decides the task failed when the job failed", () => {
    const step = pollAnswered(
      polling(),
      { state: "failed", error: { code: "content_filtered", message: "output blocked" } },
      { at: T0, now: T0 },
    );
    expect(kinds(step)).toEqual(["save"]);
    expect(step.rec).toMatchObject({
      status: "queued",
      step: "settle",
      pending_outcome: { status: "failed", error: { code: "content_filtered", message: "output blocked" } },
    });
  });

  it("asks again later when a poll fails: a failed poll is not a failed job", () => {
    const pe = new ProviderError("model_request_failed", "502 from upstream", { retryable: true, retryAfterMs: 3_000 });
    const step = pollFailed(polling(), pe, T0);
    expect(step.wait).toBe(true);
    expect(step.rec).toMatchObject({ poll_attempts: 1, next_poll_at: T0 + 3_000, pending_outcome: null });
    expect(step.rec.progress.message).toBe("Provider status unavailable: 502 from upstream");
  });

  it("gives up after MALFORMED_POLLS answers in a row in an undocumented shape", () => {
    const malformed = new ProviderError("model_request_failed", "unexpected body", { malformed: true });
    let rec = polling();
    for (let i = 1; i < MALFORMED_POLLS; i++) {
      const step = pollFailed(rec, malformed, T0);
      expect(step.rec.pending_outcome).toBeNull();
      rec = step.rec;
    }
    expect(rec.malformed_polls).toBe(MALFORMED_POLLS - 1);
    // A well-formed failure in between starts the count again.
    expect(pollFailed(rec, new ProviderError("model_request_failed", "timeout"), T0).rec.malformed_polls).toBe(0);
    const last = pollFailed(rec, malformed, T0);
    expect(last.rec.pending_outcome).toMatchObject({ status: "failed", error: { code: "model_request_failed" } });
  });

  it("polls at once when the provider's webhook names this task's job, and ignores one that does not", () => {
    const step = woken({ ...polling(), next_poll_at: T0 + 60_000 }, "first", "job_1", T0 + 5);
    expect(step && kinds(step)).toEqual(["event:provider_webhook", "save"]);
    expect(step?.rec.next_poll_at).toBe(T0 + 5);
    expect(woken(polling(), "first", "job_other", T0)).toBeNull();
    expect(woken(polling(), "second", "job_1", T0)).toBeNull();
    expect(woken(task(), "first", "job_1", T0)).toBeNull();
  });
});
