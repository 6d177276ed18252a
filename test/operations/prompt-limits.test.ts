/** A card whose prompt limit is in tokens is checked in tokens, never in characters. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { newKey } from "../helpers/tasks";
import { catalogView, held, PATHS } from "./requests";

let t: TestTenant;
let card: any;
beforeAll(async () => {
  t = await newTenant({ credits: "100000000" });
  const { detail } = await catalogView(t.api_key);
  card = detail.text_to_image.models.find((m: any) => m.prompt?.unit === "tokens");
});
const post = (body: unknown) =>
  call(PATHS.text_to_image as string, { key: t.api_key, body: held(body), headers: { "Idempotency-Key": newKey() } });

describe("prompt limits in tokens", () => {
  it("a catalog card publishes its limit in tokens, with the approximate counter", () => {
    expect(card, "a text_to_image card with a token limit").toBeDefined();
    expect(card.prompt).toMatchObject({ unit: "tokens", counter: "approximate_tokens" });
  });

  it("accepts a prompt longer than the limit in characters but within it in tokens", async () => {
    const limit = card.prompt.limit;
    // limit/4 words of four letters: more characters than the limit, far fewer tokens.
    const prompt = "wave ".repeat(Math.ceil(limit / 4)).trim();
    expect(prompt.length).toBeGreaterThan(limit);
    const res = await post({ model: card.model, prompt });
    expect(res.status, res.text).toBe(202);
  });

  it("refuses a prompt that is certainly over: 422 context_length_exceeded, counted in tokens", async () => {
    const limit = card.prompt.limit;
    // limit + 1 words: at least limit + 1 tokens for any tokenizer that splits at spaces.
    const prompt = "a ".repeat(limit + 1).trim();
    const e = expectError(await post({ model: card.model, prompt }), 422, "context_length_exceeded", "/prompt");
    expect(e.details.candidate_failures[0]).toMatchObject({
      model: card.model,
      code: "prompt_too_long",
      received: limit + 1,
      supported: { limit, unit: "tokens", counter: "approximate_tokens" },
    });
    expect(e.message).toContain(`at least ${limit + 1} tokens`);
  });
});
