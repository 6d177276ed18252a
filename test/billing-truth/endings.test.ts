/**
 * Every way a task can end, with what it is charged and what `billing` says (docs/billing.md):
 * each error code an upstream can end a task with, wherever it reports it; a cancel in each state;
 * the deadline before anything was accepted; a success whose usage passes its hold. The provider
 * answers as scripted (scripted-provider.ts).
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import billingDoc from "../../docs/billing.md?raw";
import { ERROR_CODES } from "../../src/errors/codes";
import { dec } from "../../src/lib/decimal";
import { ProviderError } from "../../src/providers/types";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, fastForward, forgetCached, getTask, ledger, runAlarm, taskEvents, taskStub } from "../helpers/tasks";
import { ENDING_CODES } from "./ending-codes";
import { type Script, script, useScriptedProvider } from "./scripted-provider";

useScriptedProvider();

/** A tenant per case, so that its ledger holds that one task only. */
async function tenant(): Promise<TestTenant> {
  return newTenant({ credits: "1000" });
}

const TERMINAL = ["succeeded", "failed", "canceled"];

/** Runs the task (moving its waits to now) until it ends or `until` holds. */
async function drive(t: TestTenant, id: string, until: (x: any) => boolean = (x) => TERMINAL.includes(x.status)) {
  let task = (await getTask(t, id)).json;
  for (let i = 0; i < 20 && !until(task); i++) {
    await fastForward(id).catch(() => undefined);
    task = (await getTask(t, id)).json;
  }
  return task;
}

/**
 * Waits (boundedly) until the alarm run that last moved the task has finished: the alarm is armed
 * again, for the task's next poll.
 */
async function untilIdle(id: string) {
  for (let i = 0; i < 200; i++) {
    const idle = await runInDurableObject(taskStub(id), async (_obj, state) => {
      const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task WHERE id = 1").toArray()[0];
      const at = await state.storage.getAlarm();
      return !!row && at !== null && at === JSON.parse(row.record).next_poll_at;
    });
    if (idle) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`task ${id}: its alarm was not armed for the next poll`);
}

/** Refunded in full: nothing charged, nothing captured, the reason named, the ledger back where it was. */
async function expectRefunded(t: TestTenant, task: any, reason: string) {
  expect(task.output).toBeNull();
  expect(task.usage.credits).toBe("0");
  expect(task.billing).toMatchObject({ net_charged_credits: "0", refund_reason: reason });
  expect(task.billing.refunded_credits).toBe(task.billing.charged_credits);
  const l = (await ledger(t.tenant_id)) as any;
  expect(l.recomputed).toEqual(l.totals);
  expect(l.totals).toMatchObject({ captured: "0", reserved: "0" });
  expect(l.balance).toBe("1000");
  const events = await taskEvents(task.task_id);
  expect(events.some((e) => e.kind === "capture")).toBe(false);
}

async function expectCharged(t: TestTenant, task: any) {
  expect(task.status).toBe("succeeded");
  expect(task.output.artifacts.length).toBeGreaterThan(0);
  expect(task.billing.net_charged_credits).toBe(task.usage.credits);
  const l = (await ledger(t.tenant_id)) as any;
  expect(l.recomputed).toEqual(l.totals);
  expect(l.totals).toMatchObject({ captured: task.usage.credits, reserved: "0" });
  expect(dec(l.balance).eq(dec(1000).minus(task.usage.credits))).toBe(true);
}

async function run(s: Script, body: Record<string, unknown> = {}) {
  const t = await tenant();
  const scr = script(s);
  const created = await createImage(t, { prompt: "an ending", ...body, metadata: scr.metadata });
  expect(created.status, created.text).toBe(202);
  return { t, scr, id: created.json.task_id as string };
}

const cancel = (t: TestTenant, id: string) => call(`/v1/tasks/${id}/cancel`, { key: t.api_key, method: "POST", body: {} });

describe("each error code an upstream can end a task with is refunded in full, with that code as the reason", () => {
  it.each(ENDING_CODES)("%s, refused at submission", async (code) => {
    const { t, id, scr } = await run({ submit: [new ProviderError(code, `upstream says ${code}`, { retryable: false })] });
    const done = await drive(t, id);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe(code);
    expect(scr.calls.poll).toBe(0);
    await expectRefunded(t, done, code);
  });

  it.each(ENDING_CODES)("%s, reported by the job's status", async (code) => {
    const { t, id, scr } = await run({
      poll: [
        { state: "running", progress: { percent: 40, stage: "generating", message: "" } },
        { state: "failed", error: { code, message: `job failed: ${code}` } },
      ],
    });
    const done = await drive(t, id);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe(code);
    expect(done.started_at).toBeTruthy();
    expect(scr.calls.fetch).toBe(0);
    await expectRefunded(t, done, code);
  });

  it("content_filtered, reported when the result is read", async () => {
    const { t, id } = await run({ fetch: [new ProviderError("content_filtered", "the output was filtered")] });
    const done = await drive(t, id);
    expect(done.error.code).toBe("content_filtered");
    await expectRefunded(t, done, "content_filtered");
  });

  it("model_output_invalid, after three failed downloads of a finished job", async () => {
    const { t, id, scr } = await run({
      fetch: [new ProviderError("model_request_failed", "404 on the output URL", { retryable: true })],
    });
    const done = await drive(t, id);
    expect(done.error.code).toBe("model_output_invalid");
    // Three attempts; a test driving the alarm beside the object's own may make one more.
    expect(scr.calls.fetch).toBeGreaterThanOrEqual(3);
    await expectRefunded(t, done, "model_output_invalid");
  });

  it("model_request_failed, after five malformed status answers in a row", async () => {
    const { t, id } = await run({
      poll: [new ProviderError("model_request_failed", "not JSON", { malformed: true, retryable: true })],
    });
    const done = await drive(t, id);
    expect(done.error.code).toBe("model_request_failed");
    await expectRefunded(t, done, "model_request_failed");
  });

  it("retryable refusals on every attempt: the last one's code, refunded", async () => {
    const { t, id, scr } = await run({ submit: [new ProviderError("model_rate_limited", "429", { retryable: true })] });
    const done = await drive(t, id);
    expect(done.error.code).toBe("model_rate_limited");
    expect(scr.calls.submit).toBe(3);
    await expectRefunded(t, done, "model_rate_limited");
  });
});

describe("a cancel in each state", () => {
  it("before the provider accepted the job (a submission waiting to be retried): canceled, nothing asked upstream", async () => {
    const { t, id, scr } = await run({
      submit: [new ProviderError("model_rate_limited", "429", { retryable: true, retryAfterMs: 50_000 })],
    });
    await runAlarm(id);
    const res = await cancel(t, id);
    expect(res.json.status).toBe("canceled");
    expect(scr.calls.cancel).toBe(0);
    await expectRefunded(t, res.json, "canceled");
  });

  it("while the submission is on its way: canceled at once, and the job it started is canceled at the provider", async () => {
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const { t, id, scr } = await run({
      submit: [
        async (real) => {
          await gate;
          return real();
        },
      ],
      cancel: ["canceled"],
    });
    for (let i = 0; i < 200 && scr.calls.submit === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(scr.calls.submit).toBe(1);
    const res = await cancel(t, id);
    expect(res.json.status).toBe("canceled");
    release();
    for (let i = 0; i < 200 && scr.calls.cancel === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(scr.calls.cancel).toBe(1);
    const done = (await getTask(t, id)).json;
    expect(done.status).toBe("canceled");
    await expectRefunded(t, done, "canceled");
  });

  it.each(["queued", "running"] as const)("%s at the provider, which stops it: canceled, refunded", async (state) => {
    const { t, id, scr } = await run({
      poll: [{ state, progress: { percent: 5, stage: state, message: "" } }],
      cancel: ["canceled"],
    });
    await drive(t, id, (x) => x.progress.stage === state || x.status === "running");
    const res = await cancel(t, id);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("canceled");
    expect(scr.calls.cancel).toBe(1);
    await expectRefunded(t, res.json, "canceled");
  });

  it("running at a provider that cannot stop it, which then finishes: 409, then charged its usage", async () => {
    const running = { state: "running" as const, progress: { percent: 50, stage: "generating", message: "" } };
    const { t, id, scr } = await run({ poll: [running], cancel: ["not_cancelable"] });
    await drive(t, id, (x) => x.status === "running");
    expectError(await cancel(t, id), 409, "conflict");
    scr.set({ poll: [{ state: "succeeded" }] });
    const done = await drive(t, id);
    expect(done.cancel_requested_at).toBeTruthy();
    await expectCharged(t, done);
  });

  it("running at a provider that cannot stop it, which then fails: 409, then refunded with the failure's code", async () => {
    const running = { state: "running" as const, progress: { percent: 50, stage: "generating", message: "" } };
    const { t, id, scr } = await run({ poll: [running], cancel: ["not_cancelable"] });
    await drive(t, id, (x) => x.status === "running");
    expectError(await cancel(t, id), 409, "conflict");
    scr.set({ poll: [{ state: "failed", error: { code: "model_request_failed", message: "boom" } }] });
    const done = await drive(t, id);
    await expectRefunded(t, done, "model_request_failed");
  });

  it("while a finished job's output is being downloaded, the provider refusing (finished): 409, then charged", async () => {
    const { t, id, scr } = await run({
      fetch: [new ProviderError("model_request_failed", "503", { retryable: true, retryAfterMs: 60_000 })],
      cancel: ["not_cancelable"],
    });
    await drive(t, id, (x) => x.progress.stage === "storing_outputs");
    expectError(await cancel(t, id), 409, "conflict");
    expect(scr.calls.cancel).toBe(1);
    scr.set({});
    await expectCharged(t, await drive(t, id));
  });

  it("while a finished job's output is being downloaded, the provider answering canceled: canceled, refunded", async () => {
    const { t, id, scr } = await run({
      fetch: [new ProviderError("model_request_failed", "503", { retryable: true, retryAfterMs: 60_000 })],
      cancel: ["canceled"],
    });
    await drive(t, id, (x) => x.progress.stage === "storing_outputs");
    const res = await cancel(t, id);
    expect(res.json.status).toBe("canceled");
    expect(scr.calls.cancel).toBe(1);
    await expectRefunded(t, res.json, "canceled");
  });

  it("while the outcome is being settled: 409, the decided outcome stands", async () => {
    // The next poll is a minute away, so no step of the object's own runs while the test writes.
    const running = {
      state: "running" as const,
      progress: { percent: 50, stage: "generating", message: "" },
      poll_after_ms: 60_000,
    };
    const { t, id } = await run({ poll: [running] });
    await drive(t, id, (x) => x.status === "running");
    // The status shows running as soon as the poll's answer is saved, before the alarm run that
    // saved it has finished (it still tells the task list and re-arms the alarm): wait until it
    // has, so that nothing of the object's own is under way when the test writes.
    await untilIdle(id);
    // The outcome is decided (a failure) and the account not yet asked: the state between the two
    // writes, made and asked about in one turn of the object so that none of its own steps comes between.
    const answer = await runInDurableObject(taskStub(id), async (obj, state) => {
      const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task WHERE id = 1").toArray()[0] as {
        record: string;
      };
      const rec = JSON.parse(row.record);
      rec.step = "settle";
      rec.pending_outcome = { status: "failed", error: { code: "model_request_failed", message: "decided" } };
      state.storage.sql.exec("UPDATE task SET record = ? WHERE id = 1", JSON.stringify(rec));
      forgetCached(obj);
      return obj.cancel({ tenant_id: t.tenant_id, mode: "live" }, null);
    });
    expect(answer.kind).toBe("conflict");
    // Settling asks the account, so the object's own alarm (armed for now by the cancel's write, or
    // by a run that ended after it) may be the one settling when the test runs it: run it until the
    // task has ended, a bounded number of times.
    const done = await drive(t, id);
    expect(done.status).toBe("failed");
    await expectRefunded(t, done, "model_request_failed");
  });

  it("after the end: 200 with the final envelope, nothing changes", async () => {
    const { t, id } = await run({});
    const done = await drive(t, id);
    await expectCharged(t, done);
    const res = await cancel(t, id);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(done);
    await expectCharged(t, res.json);
  });
});

describe("the deadline and the hold", () => {
  it("the deadline before any provider accepted the job: model_timeout, nothing to cancel", async () => {
    const { t, id, scr } = await run({
      submit: [new ProviderError("model_rate_limited", "429", { retryable: true, retryAfterMs: 50_000 })],
    });
    await runAlarm(id);
    await fastForward(id, (rec) => {
      rec.deadline_at = new Date(Date.now() - 1000).toISOString();
    });
    const done = (await getTask(t, id)).json;
    expect(done.error.code).toBe("model_timeout");
    expect(scr.calls.cancel).toBe(0);
    await expectRefunded(t, done, "model_timeout");
  });

  it("a success whose usage is above its hold is charged the hold, no more (the rest is the service's)", async () => {
    // The upstream returns two images for a request held for one.
    const { t, id } = await run({
      fetch: [
        async (real) => {
          const r = await real();
          const first = r.outputs[0] as (typeof r.outputs)[number];
          return { ...r, outputs: [first, { ...first, index: 1 }], usage: { ...r.usage, image_count: 2 } };
        },
      ],
    });
    const done = await drive(t, id);
    expect(done.status).toBe("succeeded");
    expect(done.output.artifacts).toHaveLength(2);
    // Priced at two images, charged the hold of one.
    expect(done.usage.lines[0]).toMatchObject({ meter: "image_count", quantity: "2" });
    expect(dec(done.usage.lines[0].billed_amount_credits).gt(done.billing.charged_credits)).toBe(true);
    expect(done.billing.net_charged_credits).toBe(done.billing.charged_credits);
    expect(done.usage.credits).toBe(done.billing.charged_credits);
    expect(done.billing.refund_reason).toBeNull();
    await expectCharged(t, done);
  });
});

describe("docs/billing.md", () => {
  it("names every error code of the service, and says for each whether a task can end with it", () => {
    for (const code of Object.keys(ERROR_CODES)) expect(billingDoc, code).toContain(`\`${code}\``);
    for (const code of ENDING_CODES) expect(billingDoc).toMatch(new RegExp(`\\| \`${code}\``));
  });

  it("cites only test files that exist", () => {
    // The glob lists every test file but the one that asks.
    const files = new Set(Object.keys(import.meta.glob("/test/**/*.test.ts")).map((f) => f.slice(1)));
    files.add("test/billing-truth/endings.test.ts");
    const cited = [...billingDoc.matchAll(/test\/[\w./-]+\.test\.ts/g)].map((m) => m[0]);
    expect(cited.length).toBeGreaterThan(10);
    for (const f of new Set(cited)) expect(files, f).toContain(f);
  });
});
