/**
 * The DeepSeek chat route (an OpenAI-compatible upstream) bills context-cache hits as DeepSeek
 * reports them: `usage.prompt_cache_hit_tokens` (api-docs.deepseek.com), against the fake upstream
 * of test/chat/fake-upstream.ts answering in DeepSeek's usage shape. The OpenAI field stays the fallback.
 */
import type OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { withCachedTokens } from "../../src/providers/openai-compatible/usage";
import { DEEPSEEK, expectedCredits, expectSettled, fake, minus, openai, uniqueTag } from "../chat/helpers";
import { newTenant, type TestTenant } from "../helpers/api";

let t: TestTenant;
let client: OpenAI;
beforeAll(async () => {
  t = await newTenant({ credits: "1000" });
  client = openai(t.api_key);
});

const params = (behaviour: Record<string, unknown>, stream: boolean) =>
  ({
    model: "deepseek-flash",
    messages: [{ role: "user", content: "Summarise the report" }],
    max_tokens: 100,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    ...fake(uniqueTag("deepseek-cache"), behaviour),
  }) as unknown as OpenAI.ChatCompletionCreateParams;

describe("DeepSeek cache hits", () => {
  const behaviour = { usage_format: "deepseek", prompt_tokens: 1200, cached_tokens: 900, reasoning_tokens: 20 };

  it("a whole completion: prompt_cache_hit_tokens are billed at the cache price", async () => {
    const before = (await expectSettled(t.tenant_id)).balance;
    const { data, response } = await client.chat.completions
      .create(params(behaviour, false) as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
    expect(data.usage?.prompt_tokens_details?.cached_tokens).toBe(900);
    // 300 × 0.00003 + 900 × 0.0000006 (not 1200 × 0.00003) + 9 × 0.00012 + 20 × 0.00012 (deepseek-flash's card prices)
    expect(response.headers.get("X-Credits-Charged")).toBe("0.01302");
    expect(expectedCredits(DEEPSEEK, data.usage as OpenAI.CompletionUsage)).toBe("0.01302");
    expect((await expectSettled(t.tenant_id)).balance).toBe(minus(before, "0.01302"));
  });

  it("a stream: the usage chunk's cache hits are billed at the cache price", async () => {
    const before = (await expectSettled(t.tenant_id)).balance;
    const stream = (await client.chat.completions.create(
      params(behaviour, true) as OpenAI.ChatCompletionCreateParamsStreaming,
    )) as AsyncIterable<OpenAI.ChatCompletionChunk>;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const c of stream) usage = c.usage ?? usage;
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(900);
    expect((await expectSettled(t.tenant_id)).balance).toBe(minus(before, "0.01302"));
  });

  it("reads DeepSeek's field first and OpenAI's as the fallback", () => {
    expect(withCachedTokens({ prompt_tokens: 10, prompt_cache_hit_tokens: 4, prompt_cache_miss_tokens: 6 })).toMatchObject({
      prompt_tokens_details: { cached_tokens: 4 },
    });
    expect(
      withCachedTokens({ prompt_tokens: 10, prompt_cache_hit_tokens: 3, prompt_tokens_details: { cached_tokens: 8 } })
        .prompt_tokens_details,
    ).toEqual({ cached_tokens: 3 });
    const openaiShape = { prompt_tokens: 10, prompt_tokens_details: { cached_tokens: 5 } };
    expect(withCachedTokens(openaiShape)).toBe(openaiShape);
    expect(withCachedTokens({ prompt_tokens: 10, prompt_cache_hit_tokens: "4" }).prompt_tokens_details).toBeUndefined();
  });
});
