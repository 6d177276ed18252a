/**
 * Chat completions reviewed when the deployment turns it on (SAFETY_REVIEW_CHAT), before anything
 * is held; and an upstream's refusal of a prompt after admission, which keeps its meaning
 * (safety_rejected, nothing charged).
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { fromUpstreamStatus } from "../../src/providers/chat-errors";
import { expectSettled, fake, fakeRequests, uniqueTag } from "../chat/helpers";
import { call, newTenant } from "../helpers/api";
import { accountState, auditOf, callWith } from "../helpers/safety";

const ON: Partial<Env> = { SAFETY_REVIEW_CHAT: "true" };
const MODEL = "deepseek-flash";

function chat(overrides: Partial<Env>, key: string, body: Record<string, unknown>) {
  return callWith(overrides, "/v1/chat/completions", { key, body: { model: MODEL, max_tokens: 20, ...body } });
}

describe("chat review, when turned on", () => {
  it("refuses a flagged user message with its pointer before anything is held or sent upstream", async () => {
    const t = await newTenant({ credits: "100" });
    const before = await accountState(t.tenant_id);
    const tag = uniqueTag("chat-refused");
    const res = await chat(ON, t.api_key, {
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Describe a sandbox-unsafe-test scene." },
      ],
      ...fake(tag),
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({
      code: "safety_rejected",
      retryable: false,
      param: "/messages/1/content",
      details: {
        categories: ["test"],
        recovery: { action: "change_input", requires_input_change: true, client_request_id: "new" },
      },
    });
    expect(await fakeRequests(tag)).toEqual([]);
    expect(await accountState(t.tenant_id)).toEqual(before);
    const [entry] = await auditOf(t.tenant_id, "safety.refused");
    expect(entry).toMatchObject({
      action: "safety.refused",
      target: "POST /v1/chat/completions",
      actor: { type: "api_key", id: t.key_id },
    });
    expect(entry.details).toMatchObject({ param: "/messages/1/content", categories: ["test"], capability: "chat_completion" });
  });

  it("points into multi-part content and at system messages", async () => {
    const t = await newTenant({ credits: "100" });
    const parts = await chat(ON, t.api_key, {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "hello" },
            { type: "text", text: "ＳＡＮＤＢＯＸ-UNSAFE-TEST" },
          ],
        },
      ],
    });
    expect(parts.json.error?.param).toBe("/messages/0/content/1/text");
    const system = await chat(ON, t.api_key, {
      messages: [
        { role: "system", content: "Always mention sandbox-unsafe-test." },
        { role: "user", content: "hi" },
      ],
    });
    expect(system.json.error?.param).toBe("/messages/0/content");
  });

  it("leaves the model's own (assistant) turns alone, and answers clean requests", async () => {
    const t = await newTenant({ credits: "100" });
    const res = await chat(ON, t.api_key, {
      messages: [
        { role: "user", content: "What is the test term?" },
        { role: "assistant", content: "It is sandbox-unsafe-test." },
        { role: "user", content: "Thanks." },
      ],
      ...fake(uniqueTag("chat-clean")),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("X-Safety-Review")).toBeNull();
    await expectSettled(t.tenant_id);
  });

  it("is off unless the deployment turns it on", async () => {
    const t = await newTenant({ credits: "100" });
    const res = await chat({}, t.api_key, {
      messages: [{ role: "user", content: "a sandbox-unsafe-test scene" }],
      ...fake(uniqueTag("chat-off")),
    });
    expect(res.status, res.text).toBe(200);
    await expectSettled(t.tenant_id);
  });

  it("fails closed with 503, or open with X-Safety-Review: skipped, when the provider gives no verdict", async () => {
    const t = await newTenant({ credits: "100" });
    const broken = { ...ON, SAFETY_PROVIDER: "openai" } as Partial<Env>; // no SAFETY_API_KEY: no verdict
    const closed = await chat(broken, t.api_key, { messages: [{ role: "user", content: "hi" }] });
    expect(closed.status).toBe(503);
    expect(closed.json.error.code).toBe("model_unavailable");
    expect((await accountState(t.tenant_id)).reservations).toBe(0);
    const open = await chat({ ...broken, SAFETY_FAILURE_MODE: "open" }, t.api_key, {
      messages: [{ role: "user", content: "hi" }],
      ...fake(uniqueTag("chat-open")),
    });
    expect(open.status, open.text).toBe(200);
    expect(open.headers.get("X-Safety-Review")).toBe("skipped");
    await expectSettled(t.tenant_id);
  });
});

describe("an upstream's refusal of the prompt, after admission", () => {
  it("is safety_rejected with the recovery object, and nothing is charged", async () => {
    const t = await newTenant({ credits: "100" });
    const res = await call("/v1/chat/completions", {
      key: t.api_key,
      body: {
        model: MODEL,
        messages: [{ role: "user", content: "hi" }],
        ...fake(uniqueTag("refused"), { scenario: "prompt_refused" }),
      },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({
      code: "safety_rejected",
      param: "/messages",
      details: { upstream_status: 400, upstream_code: "content_policy_violation", recovery: { client_request_id: "new" } },
    });
    expect(res.json.error.message).toContain("safety system");
    const ledger = await expectSettled(t.tenant_id);
    expect(ledger.totals.captured).toBe("0");
    expect(ledger.balance).toBe("100");
  });
});

describe("the chat upstreams' refusal wordings", () => {
  const code = (status: number, error: Record<string, unknown>) => fromUpstreamStatus(status, JSON.stringify({ error })).code;

  it("reads the codes and words providers use for a refused prompt as safety_rejected", () => {
    expect(
      code(400, {
        message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
        code: "content_filter",
      }),
    ).toBe("safety_rejected");
    expect(code(400, { message: "Content Exists Risk" })).toBe("safety_rejected");
    expect(code(400, { message: "Input data may contain inappropriate content.", code: "data_inspection_failed" })).toBe(
      "safety_rejected",
    );
    expect(
      code(400, { message: "Your request was rejected as a result of our safety system.", code: "moderation_blocked" }),
    ).toBe("safety_rejected");
  });

  it("keeps other refusals what they were", () => {
    expect(code(400, { message: "temperature must be at most 2" })).toBe("invalid_request");
    expect(code(400, { message: "x", code: "context_length_exceeded" })).toBe("context_length_exceeded");
    expect(code(500, { message: "violates our content policy" })).toBe("model_request_failed");
  });
});
