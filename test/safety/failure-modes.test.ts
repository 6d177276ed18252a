/**
 * What happens when the moderation provider gives no verdict, in both of the deployment's
 * choices: fail-closed answers 503 model_unavailable (retryable) with nothing reserved;
 * fail-open admits the task with a `safety_review_skipped` warning and records the skip.
 * Also Llama Guard on Workers AI through the AI binding (a fake binding answering in the
 * documented shapes), and configurations that name no usable provider.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { newTenant } from "../helpers/api";
import { accountState, createWith, safetyOf } from "../helpers/safety";
import { newKey } from "../helpers/tasks";

interface FakeAi {
  calls: { model: string; inputs: any }[];
  run(model: string, inputs: any, options?: { signal?: AbortSignal }): Promise<unknown>;
}

/** A Workers AI binding that answers each classification with `answer(text)`. */
function fakeAi(answer: (text: string, signal?: AbortSignal) => unknown): FakeAi {
  const calls: FakeAi["calls"] = [];
  return {
    calls,
    async run(model, inputs, options) {
      calls.push({ model, inputs });
      return answer(inputs.messages.at(-1).content, options?.signal);
    },
  };
}

const failing = () =>
  fakeAi(() => {
    throw new Error("AiError: 3040: Capacity temporarily exceeded, please try again.");
  });
/** Never answers until the review gives up (the signal aborts). */
const hanging = () =>
  fakeAi(
    (_t, signal) =>
      new Promise((_, reject) => signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")))),
  );
const guard = (ai: FakeAi, extra: Partial<Env> = {}): Partial<Env> => ({
  SAFETY_PROVIDER: "llama-guard",
  AI: ai,
  SAFETY_TIMEOUT_MS: "300",
  ...extra,
});

const create = createWith;

describe("fail-closed (the default)", () => {
  for (const [name, ai] of [
    ["an error", failing],
    ["a timeout", hanging],
  ] as const) {
    it(`answers ${name} with 503 model_unavailable, retryable, and reserves nothing`, async () => {
      const t = await newTenant({ credits: "1000" });
      const before = await accountState(t.tenant_id);
      const res = await create(guard(ai()), t.api_key, { prompt: "a calm lake" });
      expect(res.status, res.text).toBe(503);
      expect(res.json.error).toMatchObject({ code: "model_unavailable", retryable: true });
      expect(res.json.error.details.reason).toBe("safety_review_unavailable");
      expect(res.headers.get("Retry-After")).toBe("2");
      expect(await accountState(t.tenant_id)).toEqual(before);
    });
  }

  it("admits the same request under the same key once the provider answers again", async () => {
    const t = await newTenant({ credits: "1000" });
    const key = newKey();
    expect((await create(guard(failing()), t.api_key, { prompt: "a calm lake" }, key)).status).toBe(503);
    const ok = fakeAi(() => ({ response: { safe: true } }));
    const res = await create(guard(ok), t.api_key, { prompt: "a calm lake" }, key);
    expect(res.status, res.text).toBe(202);
    expect(await safetyOf(res.json.task_id)).toMatchObject({ provider: "llama-guard", outcome: "passed" });
  });

  it("refuses every request of a configuration that names no usable provider", async () => {
    const t = await newTenant();
    for (const overrides of [
      { SAFETY_PROVIDER: "openai" },
      { SAFETY_PROVIDER: "moderator-9000" },
      { SAFETY_PROVIDER: "llama-guard" },
    ]) {
      const res = await create(overrides, t.api_key, { prompt: "a calm lake" });
      expect(res.status, JSON.stringify(overrides)).toBe(503);
      expect(res.json.error.code).toBe("model_unavailable");
    }
    expect((await accountState(t.tenant_id)).reservations).toBe(0);
  });
});

describe("fail-open", () => {
  it("admits the task with the safety_review_skipped warning and records the skip", async () => {
    const t = await newTenant({ credits: "1000" });
    const res = await create(guard(hanging(), { SAFETY_FAILURE_MODE: "open" }), t.api_key, { prompt: "a calm lake" });
    expect(res.status, res.text).toBe(202);
    const warning = res.json.warnings.find((w: { code: string }) => w.code === "safety_review_skipped");
    expect(warning).toMatchObject({ code: "safety_review_skipped", field: "" });
    expect(typeof warning.message).toBe("string");
    expect(await safetyOf(res.json.task_id)).toMatchObject({
      provider: "llama-guard",
      outcome: "skipped",
      skipped_reason: "timeout",
      unreviewed: ["/prompt"],
    });
  });

  it("still refuses what the provider flags", async () => {
    const t = await newTenant();
    const ai = fakeAi(() => ({ response: { safe: false, categories: ["S1"] } }));
    const res = await create(guard(ai, { SAFETY_FAILURE_MODE: "open" }), t.api_key, { prompt: "a violent scene" });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({
      code: "safety_rejected",
      param: "/prompt",
      details: { categories: ["illicit/violent"] },
    });
  });
});

describe("Llama Guard on Workers AI", () => {
  it("classifies each text field apart, as one user message, asking for JSON", async () => {
    const t = await newTenant();
    const ai = fakeAi((text) =>
      text.includes("hateful") ? { response: { safe: false, categories: ["S10"] } } : { response: { safe: true } },
    );
    const body = { model: "wan-2.7", prompt: "a quiet street", negative_prompt: "hateful slogans" };
    const res = await create(guard(ai), t.api_key, body, newKey(), "/v1/videos/text-to-video");
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({
      code: "safety_rejected",
      param: "/negative_prompt",
      details: { categories: ["hate"] },
    });
    expect(ai.calls).toHaveLength(2);
    for (const c of ai.calls) {
      expect(c.model).toBe("@cf/meta/llama-guard-3-8b");
      expect(c.inputs.messages).toHaveLength(1);
      expect(c.inputs.messages[0].role).toBe("user");
      expect(c.inputs.response_format).toEqual({ type: "json_object" });
    }
  });

  it("reads the model's text answer too, and maps its hazard codes", async () => {
    const t = await newTenant();
    const ai = fakeAi(() => ({ response: "unsafe\nS11,S4" }));
    const res = await create(guard(ai), t.api_key, { prompt: "something" });
    expect(res.status).toBe(400);
    expect(res.json.error.details.categories).toEqual(["self-harm", "sexual/minors"]);
  });

  it("treats an answer in no documented shape as no verdict", async () => {
    const t = await newTenant();
    const res = await create(guard(fakeAi(() => ({ response: { verdict: "fine" } }))), t.api_key, { prompt: "a calm lake" });
    expect(res.status).toBe(503);
  });

  it("leaves a test-mode key to the built-in reviewer: the binding is never called", async () => {
    const t = await newTenant({ mode: "test" });
    const ai = failing();
    const clean = await create(guard(ai), t.api_key, { prompt: "a calm lake" });
    expect(clean.status, clean.text).toBe(202);
    expect(await safetyOf(clean.json.task_id)).toMatchObject({ provider: "builtin", outcome: "passed" });
    const flagged = await create(guard(ai), t.api_key, { prompt: "a sandbox-unsafe-test scene" });
    expect(flagged.status).toBe(400);
    expect(ai.calls).toHaveLength(0);
  });
});
