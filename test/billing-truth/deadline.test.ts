/**
 * At a task's deadline the upstream job is canceled where the provider can cancel, then read one
 * last time: an output that arrived is stored and charged as usual; without one the task fails
 * `model_timeout` and is charged nothing.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { sandboxAdapter } from "../../src/providers/sandbox/adapter";
import { newTenant, type TestTenant } from "../helpers/api";
import { createImage, expectLedgerBalanced, fastForward, getTask, taskEvents, waitFor } from "../helpers/tasks";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Moves the deadline into the past (and whatever else `patch` changes) until the task has ended. */
async function passDeadline(id: string, patch: (rec: any) => void = () => {}) {
  const past = (rec: any) => {
    rec.deadline_at = new Date(Date.now() - 1000).toISOString();
    patch(rec);
  };
  // A read already under way when the record was moved may save what it read before: move it again.
  for (let i = 0; i < 5; i++) {
    await fastForward(id, past);
    const now = (await getTask(t, id)).json;
    if (["succeeded", "failed", "canceled"].includes(now.status)) return now;
  }
  return waitFor(t, id);
}

/** The deadline's cancel calls made for this task. */
const cancelsOf = (spy: { mock: { calls: unknown[][] } }, id: string) =>
  spy.mock.calls.filter((c) => (c[1] as { task_id: string }).task_id === id);

describe("the deadline", () => {
  it("cancels a running job the provider can stop, and with no output fails model_timeout, charged nothing", async () => {
    const cancel = vi.spyOn(sandboxAdapter, "cancel");
    const created = await createImage(t, { prompt: "never finishes", metadata: { sandbox_fault: "hang" } });
    const id = created.json.task_id;
    await waitFor(t, id, (x) => x.status === "running");
    const done = await passDeadline(id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatchObject({ code: "model_timeout", retryable: true });
    expect(done.error.message).toContain("was asked to stop the job");
    expect(done.output).toBeNull();
    expect(done.usage.credits).toBe("0");
    expect(done.billing.net_charged_credits).toBe("0");
    expect(done.billing.refunded_credits).toBe(done.billing.charged_credits);
    expect(cancelsOf(cancel, id).length).toBeGreaterThanOrEqual(1);
    const events = await taskEvents(id);
    expect(events.find((e) => e.kind === "provider_cancel")?.detail).toEqual({ reason: "deadline", answer: "canceled" });
    expect(events.find((e) => e.kind === "deadline_final_read")?.detail).toMatchObject({ cancel: "canceled" });
    // Released, never captured (an alarm run beside the test's may log the idempotent release twice).
    expect(events.some((e) => e.kind === "release")).toBe(true);
    expect(events.some((e) => e.kind === "capture")).toBe(false);
    expect((await expectLedgerBalanced(t.tenant_id)).open_reservations).toBe(0);
  });

  it("keeps an output that arrived by the final read: the task succeeds, charged exactly its usage", async () => {
    const created = await createImage(t, { prompt: "just in time", metadata: { sandbox_fault: "uncancelable,hang" } });
    const id = created.json.task_id;
    await waitFor(t, id, (x) => x.status === "running");
    // The job finishes upstream as the deadline passes: the cancel is refused, the read finds the output.
    const done = await passDeadline(id, (rec) => {
      rec.metadata.sandbox_fault = "uncancelable";
    });
    expect(done.status).toBe("succeeded");
    expect(done.error).toBeUndefined();
    expect(done.output.artifacts.length).toBeGreaterThan(0);
    expect(Number(done.usage.credits)).toBeGreaterThan(0);
    expect(done.billing.net_charged_credits).toBe(done.usage.credits);
    const events = await taskEvents(id);
    expect(events.find((e) => e.kind === "provider_cancel")?.detail).toEqual({ reason: "deadline", answer: "not_cancelable" });
    expect(new Set(events.filter((e) => e.kind === "capture").map((e) => e.detail.captured))).toEqual(
      new Set([done.usage.credits]),
    );
    expect((await expectLedgerBalanced(t.tenant_id)).open_reservations).toBe(0);
  });

  it("a job the provider cannot stop and that has no output: model_timeout, charged nothing", async () => {
    const created = await createImage(t, { prompt: "unstoppable", metadata: { sandbox_fault: "uncancelable,hang" } });
    const id = created.json.task_id;
    await waitFor(t, id, (x) => x.status === "running");
    const done = await passDeadline(id);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe("model_timeout");
    expect(done.error.message).toContain("could not stop the job");
    expect(done.billing.net_charged_credits).toBe("0");
    const events = await taskEvents(id);
    expect(events.find((e) => e.kind === "provider_cancel")?.detail).toEqual({ reason: "deadline", answer: "not_cancelable" });
    await expectLedgerBalanced(t.tenant_id);
  });

  it("a finished job whose output is still being downloaded is not canceled; the final read stores it", async () => {
    const cancel = vi.spyOn(sandboxAdapter, "cancel");
    const created = await createImage(t, { prompt: "slow download", metadata: { sandbox_fault: "output_download" } });
    const id = created.json.task_id;
    await waitFor(t, id, (x) => x.progress.stage === "storing_outputs");
    const done = await passDeadline(id, (rec) => {
      rec.metadata.sandbox_fault = "";
    });
    expect(done.status).toBe("succeeded");
    expect(done.billing.net_charged_credits).toBe(done.usage.credits);
    expect(cancelsOf(cancel, id)).toHaveLength(0);
    expect((await taskEvents(id)).some((e) => e.kind === "provider_cancel")).toBe(false);
  });

  it("a download still failing at the deadline ends model_timeout, charged nothing", async () => {
    const created = await createImage(t, { prompt: "download never works", metadata: { sandbox_fault: "output_download" } });
    const id = created.json.task_id;
    await waitFor(t, id, (x) => x.progress.stage === "storing_outputs");
    const done = await passDeadline(id);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe("model_timeout");
    expect(done.error.message).toContain("no readable answer");
    expect(done.output).toBeNull();
    expect(done.billing.net_charged_credits).toBe("0");
    await expectLedgerBalanced(t.tenant_id);
  });

  it("a filtered output seen by the final read keeps its code: content_filtered, charged nothing", async () => {
    const created = await createImage(t, { prompt: "filtered late", metadata: { sandbox_fault: "hang" } });
    const id = created.json.task_id;
    await waitFor(t, id, (x) => x.status === "running");
    const done = await passDeadline(id, (rec) => {
      rec.metadata.sandbox_fault = "content_filtered";
    });
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe("content_filtered");
    expect(done.billing.net_charged_credits).toBe("0");
    await expectLedgerBalanced(t.tenant_id);
  });
});
