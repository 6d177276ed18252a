/**
 * `models` (an ordered fallback list) and `provider` preferences on a chat call: each pass-over
 * reason, a provider-side failure moving to the next listed model, a request-caused one never
 * moving, the hold and the charge with max_credits, and the refusals of malformed lists.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { expectSettled, fake, fakeRequests, uniqueTag } from "./helpers";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "1000" });
});

const ask = (tag: string, extra: Record<string, unknown>, behaviour: Record<string, unknown> = {}) => ({
  messages: [{ role: "user", content: "Tell me about Porto" }],
  max_tokens: 50,
  ...fake(tag, behaviour),
  ...extra,
});
const post = (body: Record<string, unknown>) => call("/v1/chat/completions", { key: t.api_key, body });

describe("chat models", () => {
  it("a listed model whose upstream fails on the provider's side passes to the next one; the charge is the server's", async () => {
    const tag = uniqueTag("upstream-failed");
    const res = await post(
      ask(tag, { models: ["deepseek-v4-pro", "deepseek-flash"] }, { fail_models: ["deepseek-v4-pro"], status: 404 }),
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.model).toBe("deepseek-flash");
    expect(res.headers.get("X-Provider")).toBe("deepseek");
    expect(res.json.model_fallbacks).toEqual([expect.objectContaining({ model: "deepseek-v4-pro", reason: "upstream_failed" })]);
    expect(JSON.parse(res.headers.get("X-Model-Fallbacks") as string)).toEqual(res.json.model_fallbacks);
    expect((await fakeRequests(tag)).map((r) => r.body.model)).toEqual(["deepseek-v4-pro", "deepseek-flash"]);
    // The fake's usage (40 in, 10 out) at deepseek-flash's prices, and nothing of the field reaches it.
    expect(res.headers.get("X-Credits-Charged")).toBe("0.0024");
    expect((await fakeRequests(tag))[1]?.body.models).toBeUndefined();
    await expectSettled(t.tenant_id);
  });

  it("a request-caused failure never moves to the next model", async () => {
    const tag = uniqueTag("request-caused");
    const res = await post(ask(tag, { models: ["deepseek-v4-pro", "deepseek-flash"] }, { scenario: "context_length" }));
    expectError(res, 422, "context_length_exceeded");
    expect((await fakeRequests(tag)).map((r) => r.body.model)).toEqual(["deepseek-v4-pro"]);
  });

  it("passes over a model the card refuses, one above max_credits and one the preferences exclude; none left is no_eligible_model", async () => {
    const tag = uniqueTag("pass-over");
    const res = await post(ask(tag, { models: ["nope-model", "deepseek-flash"], provider: { ignore: ["openai"] } }));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.model_fallbacks).toEqual([expect.objectContaining({ model: "nope-model", reason: "unsupported_model" })]);

    const none = await post(
      ask(uniqueTag("none"), { models: ["deepseek-v4-pro", "deepseek-flash"], provider: { only: ["openai"] } }),
    );
    const e = expectError(none, 422, "no_eligible_model");
    expect(e.details.candidate_failures.map((f: { code: string }) => f.code)).toEqual([
      "excluded_by_provider_preferences",
      "excluded_by_provider_preferences",
    ]);

    const capped = await post(ask(uniqueTag("cap"), { models: ["deepseek-v4-pro", "deepseek-flash"], max_credits: "0.000001" }));
    const c = expectError(capped, 422, "no_eligible_model");
    expect(c.details.candidate_failures.map((f: { code: string }) => f.code)).toEqual(["over_max_credits", "over_max_credits"]);
  });

  it("a single model the preferences leave no route is no_eligible_model; an unknown provider is refused where it is written", async () => {
    const res = await post(ask(uniqueTag("excluded"), { model: "deepseek-flash", provider: { ignore: ["deepseek"] } }));
    const e = expectError(res, 422, "no_eligible_model");
    expect(e.details.candidate_failures[0].code).toBe("excluded_by_provider_preferences");
    const unknown = await post(
      ask(uniqueTag("unknown"), { model: "deepseek-flash", provider: { order: ["deepseek", "nobody"] } }),
    );
    expectError(unknown, 422, "invalid_request", "/provider/order/1");
  });

  it("refuses model and models together, and auto inside models", async () => {
    expectError(
      await post(ask(uniqueTag("both"), { model: "deepseek-flash", models: ["deepseek-flash"] })),
      422,
      "invalid_request",
      "/models",
    );
    expectError(await post(ask(uniqueTag("auto"), { models: ["auto"] })), 422, "invalid_request", "/models/0");
  });
});
