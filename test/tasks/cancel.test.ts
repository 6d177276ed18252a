import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, expectLedgerBalanced, fastForward, getTask, waitFor } from "../helpers/tasks";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
});
const cancel = (id: string, body?: unknown) =>
  call(`/v1/tasks/${id}/cancel`, { key: t.api_key, method: "POST", body: body ?? {} });

describe("cancel", () => {
  it("a queued task ends canceled with everything released", async () => {
    const created = await createImage(t, { prompt: "wait in line", metadata: { sandbox_fault: "stay_queued" } });
    const queued = await waitFor(t, created.json.task_id, (x) => x.progress.stage === "queued" && x.status === "queued");
    expect(queued.status).toBe("queued");
    const res = await cancel(created.json.task_id, { reason: "changed my mind" });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("canceled");
    expect(res.json.cancel_requested_at).toBeTruthy();
    expect(res.json.completed_at).toBeTruthy();
    expect(res.json.billing.refunded_credits).toBe(res.json.billing.charged_credits);
    expect(res.json.billing.net_charged_credits).toBe("0");
    const l = await expectLedgerBalanced(t.tenant_id);
    expect(l.open_reservations).toBe(0);
  });

  it("a cancel that lands while the first step is in flight stands: the step never writes its stale record over it", async () => {
    const own = await newTenant({ credits: "1000" });
    const ids = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const created = await createImage(own, { prompt: `race ${i}`, metadata: { sandbox_fault: "stay_queued" } });
        // Spread over the first step's window: its key lookup, route health's answer and the submission.
        await new Promise((r) => setTimeout(r, i * 2));
        const res = await call(`/v1/tasks/${created.json.task_id}/cancel`, { key: own.api_key, method: "POST", body: {} });
        expect(res.json.status).toBe("canceled");
        return created.json.task_id as string;
      }),
    );
    // Whatever the interrupted steps do next, every task stays canceled and nothing is held or charged.
    await new Promise((r) => setTimeout(r, 500));
    for (const id of ids)
      expect((await getTask(own, id)).json).toMatchObject({ status: "canceled", billing: { net_charged_credits: "0" } });
    expect((await expectLedgerBalanced(own.tenant_id)).open_reservations).toBe(0);
  });

  it("a running task is canceled at the provider when it can stop", async () => {
    const created = await createImage(t, { prompt: "long", metadata: { sandbox_fault: "hang" } });
    const running = await waitFor(t, created.json.task_id, (x) => x.status === "running");
    expect(running.started_at).toBeTruthy();
    const res = await cancel(created.json.task_id);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("canceled");
    expect(res.json.billing.net_charged_credits).toBe("0");
  });

  it("a running task that cannot be stopped: 409 conflict, keep polling, execution continues", async () => {
    const created = await createImage(t, { prompt: "unstoppable", metadata: { sandbox_fault: "uncancelable,hang" } });
    const id = created.json.task_id;
    await waitFor(t, id, (x) => x.status === "running");
    const e = expectError(await cancel(id), 409, "conflict");
    expect(e.details.action).toBe("keep_polling");
    expect(e.retryable).toBe(false);
    const after = (await getTask(t, id)).json;
    expect(after.status).toBe("running");
    expect(after.cancel_requested_at).toBeTruthy();
    // The provider finishes the job after all: the task completes and is charged normally.
    await fastForward(id, (rec) => {
      rec.metadata.sandbox_fault = "uncancelable";
    });
    const done = await waitFor(t, id);
    expect(done.status).toBe("succeeded");
    expect(done.cancel_requested_at).toBe(after.cancel_requested_at);
    await expectLedgerBalanced(t.tenant_id);
  });

  it("a terminal task returns 200 with its final envelope, every time", async () => {
    const done = await waitFor(t, (await createImage(t, { prompt: "finished" })).json.task_id);
    const a = await cancel(done.task_id);
    const b = await cancel(done.task_id);
    expect(a.status).toBe(200);
    expect(a.json).toEqual(done);
    expect(b.json).toEqual(done);
  });

  it("404 for unknown and foreign tasks; 422 for a malformed body", async () => {
    expectError(await cancel(`task_${"a".repeat(64)}`), 404, "task_not_found");
    const other = await newTenant();
    const theirs = (await createImage(other, { prompt: "theirs" })).json.task_id;
    expectError(await cancel(theirs), 404, "task_not_found");
    expectError(await cancel(theirs, { reason: 5 }), 422, "invalid_request", "/reason");
  });
});

describe("deadline", () => {
  it("a task past its deadline ends failed with model_timeout and its credits released", async () => {
    const created = await createImage(t, { prompt: "slow", metadata: { sandbox_fault: "hang" } });
    const id = created.json.task_id;
    await waitFor(t, id, (x) => x.status === "running");
    const pastDeadline = (rec: any) => {
      rec.deadline_at = new Date(Date.now() - 1000).toISOString();
    };
    await fastForward(id, pastDeadline);
    // A poll already under way when the deadline moved may save the record it read before; as for the
    // faults below, the deadline is moved again (at most five times) until the task has ended.
    for (let i = 0; i < 5 && (await getTask(t, id)).json.status === "running"; i++) await fastForward(id, pastDeadline);
    const done = await waitFor(t, id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatchObject({ code: "model_timeout", type: "model_error", retryable: true });
    expect(done.billing.net_charged_credits).toBe("0");
    await expectLedgerBalanced(t.tenant_id);
  });
});

describe("provider faults end in defined states with the ledger balanced", () => {
  it.each([
    ["provider_error", "model_request_failed"],
    ["rate_limited", "model_rate_limited"],
    ["content_filtered", "content_filtered"],
    ["output_download", "model_output_invalid"],
  ])("%s → failed with %s", async (fault, code) => {
    const created = await createImage(t, { prompt: "faulty", metadata: { sandbox_fault: fault } });
    const id = created.json.task_id;
    let done = await waitFor(
      t,
      id,
      (x) => x.status === "failed" || x.status === "succeeded" || x.progress.stage === "storing_outputs",
    );
    for (let i = 0; i < 5 && done.status !== "failed"; i++) {
      await fastForward(id);
      done = (await getTask(t, id)).json;
    }
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe(code);
    expect(done.error.request_id).toBeTruthy();
    expect(done.output).toBeNull();
    expect(done.billing.net_charged_credits).toBe("0");
    expect(done.usage.credits).toBe("0");
    await expectLedgerBalanced(t.tenant_id);
  });
});
