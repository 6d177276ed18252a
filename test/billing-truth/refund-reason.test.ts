/**
 * `billing.refund_reason`: whenever credits are given back the envelope says why — the failure's
 * error code, `canceled`, or `usage_below_estimate` for a success that cost less than its hold —
 * and reads, callbacks and cancel answers say the same.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dec } from "../../src/lib/decimal";
import { refundReason } from "../../src/task-record/refund-reason";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { pngInput } from "../helpers/media-fixtures";
import { createImage, expectLedgerBalanced, fastForward, getTask, newKey, waitFor } from "../helpers/tasks";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
});

/** Runs the task until it ends, moving its waits (retries, backoffs) to now. */
async function ended(id: string) {
  let task = await waitFor(
    t,
    id,
    (x) => ["succeeded", "failed", "canceled"].includes(x.status) || x.progress.stage === "storing_outputs",
  );
  for (let i = 0; i < 8 && !["succeeded", "failed", "canceled"].includes(task.status); i++) {
    await fastForward(id);
    task = (await getTask(t, id)).json;
  }
  return task;
}

describe("billing.refund_reason", () => {
  it.each([
    ["provider_error", "model_request_failed"],
    ["rate_limited", "model_rate_limited"],
    ["content_filtered", "content_filtered"],
    ["output_download", "model_output_invalid"],
  ])("a task failed by %s is refunded in full with reason %s", async (fault, code) => {
    const created = await createImage(t, { prompt: "refunded", metadata: { sandbox_fault: fault } });
    const done = await ended(created.json.task_id);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe(code);
    expect(done.billing).toMatchObject({ net_charged_credits: "0", refund_reason: code });
    expect(done.billing.refunded_credits).toBe(done.billing.charged_credits);
    expect(dec(done.billing.refunded_credits).gt(0)).toBe(true);
  });

  it("a canceled task says canceled, in the cancel answer and in later reads", async () => {
    const created = await createImage(t, { prompt: "stop", metadata: { sandbox_fault: "stay_queued" } });
    const id = created.json.task_id;
    expect(created.json.billing.refund_reason).toBeNull();
    const res = await call(`/v1/tasks/${id}/cancel`, { key: t.api_key, method: "POST", body: {} });
    expect(res.json.status).toBe("canceled");
    expect(res.json.billing).toMatchObject({ net_charged_credits: "0", refund_reason: "canceled" });
    expect((await getTask(t, id)).json.billing.refund_reason).toBe("canceled");
  });

  it("a task past its deadline with no output says model_timeout", async () => {
    const created = await createImage(t, { prompt: "late", metadata: { sandbox_fault: "hang" } });
    const id = created.json.task_id;
    await waitFor(t, id, (x) => x.status === "running");
    let done = (await getTask(t, id)).json;
    for (let i = 0; i < 5 && done.status === "running"; i++) {
      await fastForward(id, (rec) => {
        rec.deadline_at = new Date(Date.now() - 1000).toISOString();
      });
      done = (await getTask(t, id)).json;
    }
    expect(done.status).toBe("failed");
    expect(done.billing).toMatchObject({ net_charged_credits: "0", refund_reason: "model_timeout" });
  });

  it("a success charged exactly its hold has nothing refunded and no reason", async () => {
    const done = await waitFor(t, (await createImage(t, { prompt: "priced as estimated" })).json.task_id);
    expect(done.status).toBe("succeeded");
    expect(done.billing).toMatchObject({ refunded_credits: "0", refund_reason: null });
    expect(done.billing.net_charged_credits).toBe(done.usage.credits);
  });

  it("a success that cost less than its hold gives the rest back as usage_below_estimate", async () => {
    // Understanding holds the default output budget; the answer uses less of it.
    const body = { model: "gemini-3.6-flash", prompt: "What is in this picture?", images: [await pngInput(64, 64)] };
    const res = await call("/v1/images/responses", { key: t.api_key, body, headers: { "Idempotency-Key": newKey() } });
    expect(res.status, res.text).toBe(202);
    const done = await waitFor(t, res.json.task_id);
    expect(done.status).toBe("succeeded");
    expect(dec(done.billing.refunded_credits).gt(0)).toBe(true);
    expect(done.billing.refund_reason).toBe("usage_below_estimate");
    expect(dec(done.billing.net_charged_credits).plus(done.billing.refunded_credits).eq(done.billing.charged_credits)).toBe(true);
    await expectLedgerBalanced(t.tenant_id);
  });

  it("a test-mode task (priced at zero) refunds nothing and gives no reason, even when it fails", async () => {
    const test = await newTenant({ mode: "test" });
    const created = await createImage(test, { prompt: "test failure", metadata: { sandbox_fault: "provider_error" } });
    const done = await waitFor(test, created.json.task_id);
    expect(done.status).toBe("failed");
    expect(done.billing).toMatchObject({ charged_credits: "0", refunded_credits: "0", refund_reason: null });
  });

  it("is null until the ledger has settled", () => {
    const billing = { reserved: "40", captured: "0", refunded: "40", settled: false };
    expect(refundReason({ billing, status: "failed", error: { code: "model_timeout", message: "" } })).toBeNull();
    expect(refundReason({ billing: { ...billing, settled: true }, status: "failed", error: null })).toBe("internal_error");
  });

  it("is in the envelope's published schema", async () => {
    const doc = (await call("/openapi.json")).json;
    const billing = doc.components.schemas.TaskEnvelope.properties.billing;
    expect(billing.properties.refund_reason).toBeTruthy();
    expect(billing.required).toContain("refund_reason");
  });
});
