/**
 * What a task tells the request log, read from its record and execution log alone: each
 * submission's outcome with the upstream's status, and the stages after the provider (storing,
 * delivering, each callback attempt) with their outcomes, errors, and those still under way.
 */
import { describe, expect, it } from "vitest";
import type { TaskRecord } from "../../src/task-record/record";
import { type TimedEvent, taskAttempts, taskStages } from "../../src/tasks/attempts";
import { T0, task } from "./steps/task";

const at = (ms: number) => new Date(T0 + ms).toISOString();
const ev = (ms: number, kind: string, detail: unknown = null): TimedEvent => ({ at: at(ms), kind, detail });

const succeeded = (over: Partial<TaskRecord> = {}): TaskRecord => task({ status: "succeeded", completed_at: at(900), ...over });

describe("a task's attempts", () => {
  it("names the status a refused submission was answered with; the accepted one ends when the job ended", () => {
    const rec = succeeded({
      route_failures: [
        { provider: "first", code: "model_unavailable", message: "first answered 503", at: at(50), http_status: 503 },
      ],
    });
    const events = [
      ev(10, "provider_submit", { provider: "first" }),
      ev(100, "provider_submit", { provider: "second" }),
      ev(600, "provider_succeeded"),
    ];
    const attempts = taskAttempts(rec, events);
    expect(attempts.map((a) => [a.provider, a.outcome, a.http_status, a.duration_ms])).toEqual([
      ["first", "failed", 503, 40],
      ["second", "succeeded", null, 500],
    ]);
  });

  it("a failure in the millisecond of the next route's submission is its own route's; one in its own submission's millisecond is that submission's", () => {
    const rec = succeeded({
      route_failures: [
        { provider: "first", code: "model_unavailable", message: "first answered 503", at: at(50), http_status: 503 },
        { provider: "second", code: "model_unavailable", message: "connection refused", at: at(60) },
      ],
    });
    const events = [
      ev(10, "provider_submit", { provider: "first" }),
      ev(50, "provider_submit", { provider: "second" }),
      ev(60, "provider_submit", { provider: "first" }),
      ev(60, "provider_succeeded"),
    ];
    // The second route's failure and the third submission share a millisecond too.
    const attempts = taskAttempts(rec, events);
    expect(attempts.map((a) => [a.provider, a.outcome, a.http_status, a.error?.message ?? null])).toEqual([
      ["first", "failed", 503, "first answered 503"],
      ["second", "failed", null, "connection refused"],
      ["first", "succeeded", null, null],
    ]);
  });
});

describe("a task's stages", () => {
  it("storing, then a delivery that failed with the bucket's words, then a callback refused and one still out", () => {
    const rec = succeeded({
      delivery: {
        destination_id: "dst_1",
        prefix: "",
        attempt_count: 4,
        last_attempt_at: at(800),
        items: [
          {
            destination_id: "dst_1",
            index: 0,
            artifact_id: "art_1",
            key: "task/0.png",
            content_type: "image/png",
            bytes: 10,
            status: "failed",
            etag: null,
            error: "SlowDown: Please reduce your request rate.",
            delivered_at: null,
          },
        ],
      },
    });
    const events = [
      ev(600, "provider_succeeded"),
      ev(700, "outputs_stored", { count: 1 }),
      ev(800, "outputs_delivered", { destination_id: "dst_1", delivered: 0, failed: 1 }),
      ev(950, "callback_attempt", { attempt: 1 }),
      ev(960, "callback_answered", { attempt: 1, outcome: "retry", error: "receiver answered HTTP 500" }),
      ev(1000, "callback_attempt", { attempt: 2 }),
    ];
    expect(taskStages(rec, events)).toEqual([
      { name: "store_outputs", started_at: at(600), duration_ms: 100, outcome: "succeeded", error: null },
      {
        name: "deliver_outputs",
        started_at: at(700),
        duration_ms: 100,
        outcome: "failed",
        error: "1 of 1 outputs not delivered: SlowDown: Please reduce your request rate.",
      },
      { name: "deliver_callback", started_at: at(950), duration_ms: 10, outcome: "failed", error: "receiver answered HTTP 500" },
      { name: "deliver_callback", started_at: at(1000), duration_ms: null, outcome: "pending", error: null },
    ]);
  });

  it("storing that failed ends with the task's error; a task without a destination has no delivery stage", () => {
    const rec = task({
      status: "failed",
      completed_at: at(800),
      error: { code: "model_output_invalid", message: "The output could not be downloaded after 3 attempts" },
    } as Partial<TaskRecord>);
    expect(taskStages(rec, [ev(600, "provider_succeeded")])).toEqual([
      {
        name: "store_outputs",
        started_at: at(600),
        duration_ms: 200,
        outcome: "failed",
        error: "The output could not be downloaded after 3 attempts",
      },
    ]);
  });

  it("a job whose outputs could not be stored before the task moved to its next model: that storing failed, the next one is its own", () => {
    const events = [
      ev(10, "provider_submit", { provider: "first" }),
      ev(100, "provider_succeeded"),
      ev(400, "provider_submit", { provider: "second" }),
      ev(600, "provider_succeeded"),
      ev(700, "outputs_stored", { count: 1 }),
    ];
    expect(taskStages(succeeded(), events)).toEqual([
      {
        name: "store_outputs",
        started_at: at(100),
        duration_ms: 300,
        outcome: "failed",
        error: "The outputs could not be stored; the task moved on to its next model.",
      },
      { name: "store_outputs", started_at: at(600), duration_ms: 100, outcome: "succeeded", error: null },
    ]);
  });

  it("a running task's storing is under way; a task not yet ended at the provider has no stage", () => {
    expect(taskStages(task({ status: "running" }), [ev(600, "provider_succeeded")])).toEqual([
      { name: "store_outputs", started_at: at(600), duration_ms: null, outcome: "pending", error: null },
    ]);
    expect(taskStages(task({ status: "running" }), [ev(10, "provider_submit", { provider: "first" })])).toEqual([]);
  });
});
