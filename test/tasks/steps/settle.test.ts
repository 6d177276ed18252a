/** Settlement as a plain function: the ledger's answer becomes the task's status and its bill. */
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../../src/providers/types";
import { decide } from "../../../src/tasks/steps/outcome";
import { settled } from "../../../src/tasks/steps/settle";
import { submitFailed } from "../../../src/tasks/steps/submit";
import { kinds, T0, task } from "./task";

const usage = { ...task().usage, image_count: 1, credits: "40", lines: [] };

describe("settle", () => {
  it("shows success once the account captured, then tells the task list; the callback is due at once", () => {
    const rec = decide({ ...task(), status: "running", usage }, { status: "succeeded" });
    const step = settled(rec, { reserved: "40", captured: "40", refunded: "0" }, T0 + 9);
    expect(kinds(step)).toEqual(["event:capture", "checkpoint:capture", "save", "index"]);
    expect(step.rec).toMatchObject({
      status: "succeeded",
      step: "done",
      pending_outcome: null,
      error: null,
      completed_at: new Date(T0 + 9).toISOString(),
      billing: { reserved: "40", captured: "40", refunded: "0", settled: true },
      progress: { percent: 100, stage: "completed" },
      callback: { status: "pending", next_attempt_at: T0 + 9 },
    });
  });

  it("refunds a safety refusal: released, nothing billed, the refusal shown", () => {
    const refused = submitFailed(task({ submit_attempts: 1 }), new ProviderError("safety_rejected", "prompt refused"), T0).rec;
    const step = settled({ ...refused, usage }, { reserved: "40", captured: "0", refunded: "40" }, T0);
    expect(kinds(step)).toEqual(["event:release", "checkpoint:capture", "save", "index"]);
    expect(step.rec).toMatchObject({
      status: "failed",
      error: { code: "safety_rejected", message: "prompt refused" },
      billing: { captured: "0", refunded: "40", settled: true },
      usage: { credits: "0" },
      progress: { stage: "failed", message: "prompt refused" },
    });
  });

  it("shows a cancel as canceled, refunding what was held when the account knew no reservation", () => {
    const step = settled(decide(task(), { status: "canceled" }), null, T0);
    expect(step.rec).toMatchObject({
      status: "canceled",
      billing: { reserved: "40", captured: "0", refunded: "40" },
      progress: { stage: "canceled", message: "Canceled" },
    });
  });

  it("bills no more than the account captured", () => {
    const rec = decide({ ...task(), usage: { ...usage, credits: "55" } }, { status: "succeeded" });
    expect(settled(rec, { reserved: "40", captured: "40", refunded: "0" }, T0).rec.usage.credits).toBe("40");
  });

  it("drops what the adapter staged, when the job's handle names a kept answer", () => {
    const staged = { ...task(), provider_handle: { job_id: "j", submitted_at: T0, data: { staging_key: "k" } } };
    const step = settled(decide(staged, { status: "succeeded" }), { reserved: "40", captured: "40", refunded: "0" }, T0);
    expect(step.effects.at(-1)).toEqual({ type: "drop_staging", task_id: "task_steps" });
  });

  it("does nothing without a decided outcome", () => {
    expect(settled(task(), null, T0).effects).toEqual([]);
  });
});
