/**
 * The task engine under random histories: an upstream answering anything it may answer
 * (scripted-provider.ts), cancels, deadlines and crashes of the task object at every recovery
 * point, in any order. After every step: a task without a stored output was charged zero; a
 * succeeded task was charged exactly its usage; the tenant's ledger balances.
 *
 * Seeded: the seed is printed, and VITE_BILLING_PROPERTY_SEED=<seed> replays a run
 * (VITE_BILLING_PROPERTY_RUNS=<n> runs more of them).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dec } from "../../src/lib/decimal";
import { type PollResult, ProviderError, type ProviderHandle, type ProviderResult } from "../../src/providers/types";
import type { CrashPoint } from "../../src/task-record/step-effects";
import { setFaultHook } from "../../src/tasks/faults";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { createImage, fastForward, getTask, ledger, newKey, taskEvents } from "../helpers/tasks";
import { ENDING_CODES } from "./ending-codes";
import { type Answer, type Script, script, useScriptedProvider } from "./scripted-provider";

useScriptedProvider();

const viteEnv = (import.meta as unknown as { env?: Record<string, string | undefined> }).env ?? {};
const SEED = Number(viteEnv.VITE_BILLING_PROPERTY_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(viteEnv.VITE_BILLING_PROPERTY_RUNS ?? 16);
const CREDITS = "1000";
const TERMINAL = new Set(["succeeded", "failed", "canceled"]);

/** Crashes armed per script: the object crashes once at each (src/tasks/faults.ts). */
const armed = new Map<string, Set<CrashPoint>>();
beforeAll(() => {
  setFaultHook((point, task) => armed.get(task.metadata.provider_script ?? "")?.has(point) ?? false);
});
afterAll(() => setFaultHook(null));

// ------------------------------------------------------------------ what the upstream may answer

const code = fc.constantFrom(...ENDING_CODES);
const progress = { percent: 30, stage: "generating", message: "" };

const submitAnswer: fc.Arbitrary<ProviderError | null> = fc.oneof(
  { weight: 5, arbitrary: fc.constant(null) }, // accepted (the sandbox's own answer)
  code.map((c) => new ProviderError(c, `refused: ${c}`, { retryable: false })),
  fc
    .constantFrom("model_rate_limited", "model_request_failed", "model_unavailable")
    .map((c) => new ProviderError(c as "model_rate_limited", `try again: ${c}`, { retryable: true })),
  // No answer at all: the upstream may have taken it (the sandbox can neither be asked nor call back).
  fc.constant(new ProviderError("model_request_failed", "connection reset", { retryable: true, accepted: "unknown" })),
);

const pollAnswer: fc.Arbitrary<Answer<PollResult>> = fc.oneof(
  fc.constant<PollResult>({ state: "queued", progress: { ...progress, percent: 0, stage: "queued" } }),
  fc.constant<PollResult>({ state: "running", progress }),
  { weight: 2, arbitrary: fc.constant<PollResult>({ state: "succeeded" }) },
  code.map<PollResult>((c) => ({ state: "failed", error: { code: c, message: `job failed: ${c}` } })),
  fc.constant(new ProviderError("model_request_failed", "502 from the status endpoint", { retryable: true })),
  fc.constant(new ProviderError("model_request_failed", "not JSON", { retryable: true, malformed: true })),
);

type FetchKind = "ok" | "more" | "unreadable" | "filtered";
const fetchAnswer = fc.constantFrom<FetchKind>("ok", "more", "unreadable", "filtered");

const cancelAnswer = fc.constantFrom<"canceled" | "not_cancelable" | "throws">("canceled", "not_cancelable", "throws");

type Action =
  | { kind: "advance" }
  | { kind: "cancel" }
  | { kind: "deadline" }
  | { kind: "crash"; point: CrashPoint }
  | { kind: "answers"; poll: Answer<PollResult>[] };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Action>({ kind: "advance" }) },
  { weight: 1, arbitrary: fc.constant<Action>({ kind: "cancel" }) },
  { weight: 1, arbitrary: fc.constant<Action>({ kind: "deadline" }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<CrashPoint>("submit", "store", "capture").map<Action>((point) => ({ kind: "crash", point })),
  },
  {
    weight: 1,
    arbitrary: fc.array(pollAnswer, { minLength: 1, maxLength: 3 }).map<Action>((poll) => ({ kind: "answers", poll })),
  },
);

const history = fc.record({
  submit: fc.array(submitAnswer, { minLength: 1, maxLength: 4 }),
  poll: fc.array(pollAnswer, { minLength: 1, maxLength: 5 }),
  fetch: fetchAnswer.chain((first) => fc.array(fetchAnswer, { maxLength: 2 }).map((rest) => [first, ...rest])),
  cancel: cancelAnswer,
  crashAtReserve: fc.boolean(),
  actions: fc.array(action, { minLength: 1, maxLength: 6 }),
});
type History = typeof history extends fc.Arbitrary<infer H> ? H : never;

const real = <T>(r: () => Promise<T>) => r();

function fetchOf(kind: FetchKind): Answer<ProviderResult> {
  if (kind === "unreadable") return new ProviderError("model_request_failed", "404 on the output URL", { retryable: true });
  if (kind === "filtered") return new ProviderError("content_filtered", "the output was filtered");
  if (kind === "ok") return real;
  // More images than the request asked for (and was held for), reported as such.
  return async (r) => {
    const got = await r();
    const n = got.outputs.length;
    return {
      ...got,
      outputs: [...got.outputs, ...got.outputs.map((o) => ({ ...o, index: o.index + n }))],
      usage: { ...got.usage, image_count: 2 * n, image_pixels: 2 * (got.usage.image_pixels ?? 0) },
    };
  };
}

function scriptOf(h: History): Script {
  return {
    submit: h.submit.map((a): Answer<ProviderHandle> => a ?? real),
    poll: [...h.poll],
    fetch: h.fetch.map(fetchOf),
    cancel: [h.cancel === "throws" ? new ProviderError("model_request_failed", "cancel endpoint down") : h.cancel],
  };
}

// ------------------------------------------------------------------ the properties

/** What must hold whenever the task is looked at. Returns the envelope. */
async function check(t: TestTenant, id: string, where: string) {
  // A read that meets the object as a drill crashes it is answered 500 (retryable): read again.
  let read = await getTask(t, id);
  for (let i = 0; i < 3 && read.status >= 500; i++) read = await getTask(t, id);
  expect(read.status, read.text).toBe(200);
  const task = read.json;
  const l = (await ledger(t.tenant_id)) as any;
  const at = `${where}: ${task.status} ${JSON.stringify(task.billing)} ${JSON.stringify(l.totals)}`;
  // The ledger balances: running totals equal the rows; balance = granted − captured − held ≥ 0.
  expect(l.recomputed, at).toEqual(l.totals);
  expect(l.totals.granted, at).toBe(CREDITS);
  expect(dec(l.balance).eq(dec(CREDITS).minus(l.totals.captured).minus(l.totals.reserved)), at).toBe(true);
  expect(dec(l.balance).gte(0), at).toBe(true);
  const held = dec(task.billing.charged_credits);
  // Never more than was held for this task, whatever the moment.
  expect(dec(l.totals.captured).plus(l.totals.reserved).lte(held), at).toBe(true);
  if (!TERMINAL.has(task.status)) {
    expect(task.billing.net_charged_credits, at).toBe(task.billing.charged_credits);
    expect(task.billing.refund_reason, at).toBeNull();
    return task;
  }
  // Ended: the ledger is settled and agrees with the envelope.
  expect(l.open_reservations, at).toBe(0);
  expect(l.totals.captured, at).toBe(task.billing.net_charged_credits === "0" ? "0" : task.billing.net_charged_credits);
  expect(dec(task.billing.refunded_credits).eq(held.minus(task.billing.net_charged_credits)), at).toBe(true);
  const stored = task.output?.artifacts?.length ?? 0;
  if (task.status !== "succeeded" || stored === 0) {
    // No stored output: charged zero.
    expect(task.output, at).toBeNull();
    expect(task.usage.credits, at).toBe("0");
    expect(task.billing.net_charged_credits, at).toBe("0");
    expect(l.totals.captured, at).toBe("0");
    expect(task.billing.refund_reason, at).toBe(held.gt(0) ? (task.status === "canceled" ? "canceled" : task.error.code) : null);
  } else {
    // Succeeded: charged exactly its usage, which is what it stored, priced, up to the hold.
    expect(task.error, at).toBeUndefined();
    expect(task.usage.image_count, at).toBe(stored);
    const lines = task.usage.lines.reduce((n: ReturnType<typeof dec>, x: any) => n.plus(x.billed_amount_credits), dec(0));
    const priced = dec(lines);
    expect(dec(task.usage.credits).eq(priced.gt(held) ? held : priced), at).toBe(true);
    expect(task.billing.net_charged_credits, at).toBe(task.usage.credits);
    expect(l.totals.captured, at).toBe(task.usage.credits);
  }
  // One settlement: every capture or release logged (an alarm may log it twice) names one outcome.
  const settlements = (await taskEvents(id)).filter((e) => e.kind === "capture" || e.kind === "release");
  expect(new Set(settlements.map((e) => `${e.kind}:${e.detail?.captured}`)).size, at).toBe(1);
  return task;
}

async function create(t: TestTenant, h: History) {
  const scr = script(scriptOf(h));
  const points = new Set<CrashPoint>(h.crashAtReserve ? ["reserve"] : []);
  armed.set(scr.metadata.provider_script, points);
  const key = newKey();
  // A crash mid-admission answers 500; the client's retry with the same key is admitted.
  for (let i = 0; i < 3; i++) {
    const res = await createImage(t, { prompt: "a property", metadata: scr.metadata }, key);
    if (res.status === 202) return { id: res.json.task_id as string, scr, points };
    expect(res.status, res.text).toBe(500);
    expect(res.json.error).toMatchObject({ code: "internal_error", retryable: true });
  }
  throw new Error("the create was never admitted");
}

async function step(t: TestTenant, id: string, a: Action, ctx: { points: Set<CrashPoint>; scr: ReturnType<typeof script> }) {
  if (a.kind === "advance") await fastForward(id).catch(() => undefined);
  else if (a.kind === "deadline")
    await fastForward(id, (rec) => {
      rec.deadline_at = new Date(Date.now() - 1000).toISOString();
    }).catch(() => undefined);
  else if (a.kind === "crash") ctx.points.add(a.point);
  else if (a.kind === "answers") ctx.scr.set({ poll: [...a.poll] });
  else {
    const res = await call(`/v1/tasks/${id}/cancel`, { key: t.api_key, method: "POST", body: {} });
    // A cancel is answered: done (200), or refused while the task goes on (409); a drill that crashes
    // the object while the cancel settles answers as any crash does (500, retryable), settled later.
    const crashed = res.status === 500 && ctx.points.size > 0 && res.json.error.code === "internal_error";
    if (!crashed) expect([200, 409], res.text).toContain(res.status);
    if (res.status === 409) expect(res.json.error.code).toBe("conflict");
  }
}

describe("the task engine under random histories", () => {
  it(`charges nothing for no output, exactly the usage for an output, and keeps the ledger balanced (seed ${SEED})`, async () => {
    console.log(`billing property seed: ${SEED} (replay: VITE_BILLING_PROPERTY_SEED=${SEED})`);
    const ends = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(history, async (h) => {
        const t = await newTenant({ credits: CREDITS });
        const { id, scr, points } = await create(t, h);
        await check(t, id, "admitted");
        for (const [i, a] of h.actions.entries()) {
          await step(t, id, a, { points, scr });
          await check(t, id, `after ${i}: ${a.kind}`);
        }
        // Then it runs out its course: the upstream keeps its last answers, and the deadline comes.
        let task = await check(t, id, "before the end");
        for (let i = 0; i < 12 && !TERMINAL.has(task.status); i++) {
          await step(t, id, i < 6 ? { kind: "advance" } : { kind: "deadline" }, { points, scr });
          task = await check(t, id, `ending ${i}`);
        }
        expect(TERMINAL.has(task.status), `never ended: ${JSON.stringify(task.progress)}`).toBe(true);
        armed.delete(scr.metadata.provider_script);
        const end = task.status === "failed" ? `failed ${task.error.code}` : task.status;
        ends.set(end, (ends.get(end) ?? 0) + 1);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(`endings: ${[...ends].map(([k, v]) => `${k} ${v}`).join(", ")}`);
  }, 120_000);
});
