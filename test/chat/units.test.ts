import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildCatalog } from "../../src/catalog/build";
import { estimatePromptTokens, normalizeUsage, textTokens, tokenPrices, usageCredits } from "../../src/chat/pricing";
import { ApiError } from "../../src/errors/api-error";
import { fromUpstreamStatus, safeMessage } from "../../src/providers/chat-errors";
import { retryAfterMs } from "../../src/providers/http";
import { openAiCompatible } from "../../src/providers/openai-compatible/chat";
import { sseData } from "../../src/providers/openai-compatible/sse";
import { sandboxChat, sandboxTokens } from "../../src/providers/sandbox/chat";
import { FAKE_UPSTREAM_KEY } from "./fake-upstream";
import { fake, fakeRequests, uniqueTag } from "./helpers";

const bundle = buildCatalog(JSON.parse(env.TEST_CATALOG));
const chatCard = (model: string) => bundle.models[model]!.interfaces.find((i) => i.capability === "chat_completion")!;

describe("token estimates", () => {
  it("about four ASCII characters per token; any other character is a token of its own", () => {
    expect(textTokens("")).toBe(0);
    expect(textTokens("abcd")).toBe(1);
    expect(textTokens("abcde")).toBe(2);
    expect(textTokens("日本語")).toBe(3);
    expect(textTokens("ab日")).toBe(2);
  });

  it("counts messages, names, tool calls, tools and a fixed allowance per image part", () => {
    const base = estimatePromptTokens({ messages: [{ role: "user", content: "abcd" }] });
    expect(base).toBe(3 + 4 + 1);
    const image = estimatePromptTokens({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "abcd" },
            { type: "image_url", image_url: { url: "https://x/y.png" } },
          ],
        },
      ],
    });
    expect(image - base).toBe(1000);
    const withTools = estimatePromptTokens({
      messages: [{ role: "user", content: "abcd" }],
      tools: [{ type: "function", function: { name: "f" } }],
    });
    expect(withTools).toBeGreaterThan(base);
  });

  it("the sandbox's tokens put back together give the text", () => {
    const text = "Hello, world: 12345 tokens — ok?  ";
    expect(sandboxTokens(text).join("")).toBe(text);
  });
});

describe("token prices", () => {
  it("cached, cache-write and reasoning tokens fall back to the input and output prices when the card has none", () => {
    const card = chatCard("gemini-3.8-flash");
    const bare = {
      ...card,
      pricing: {
        ...card.pricing,
        schedule: undefined,
        options: card.pricing.options.filter((o) => o.dimensions.token_type !== "cache_read"),
      },
    };
    expect(card.pricing.options.some((o) => o.dimensions.token_type === "cache_read")).toBe(true);
    expect(tokenPrices(bare, 10)).toEqual({
      input: "0.000075",
      cache_read: "0.000075",
      cache_write: "0.000075",
      output: "0.000375",
      reasoning: "0.000375",
    });
  });

  it("a context tier applies above its threshold only", () => {
    const card = chatCard("gpt-6.1-sol");
    expect(tokenPrices(card, 272_000).input).toBe("0.0002");
    expect(tokenPrices(card, 272_001)).toEqual({
      input: "0.0004",
      cache_read: "0.00002",
      cache_write: "0.0004",
      output: "0.0015",
      reasoning: "0.0015",
    });
  });

  it("usage is priced per token type in exact decimals", () => {
    const prices = { input: "0.1", cache_read: "0.01", output: "0.3", reasoning: "0.7" };
    const usage = normalizeUsage({
      prompt_tokens: 3,
      completion_tokens: 3,
      prompt_tokens_details: { cached_tokens: 1 },
      completion_tokens_details: { reasoning_tokens: 1 },
    });
    // 2 × 0.1 + 1 × 0.01 + 2 × 0.3 + 1 × 0.7: 1.51 exactly (floats would give 1.5100000000000002).
    expect(usageCredits(prices, usage)).toBe("1.51");
    // Cache writes at their own price: 1 × 0.1 + 1 × 0.01 + 1 × 0.125 + 2 × 0.3 + 1 × 0.7.
    const written = normalizeUsage({
      prompt_tokens: 3,
      completion_tokens: 3,
      prompt_tokens_details: { cached_tokens: 1, cache_creation_tokens: 1 },
      completion_tokens_details: { reasoning_tokens: 1 },
    });
    expect(usageCredits({ ...prices, cache_write: "0.125" }, written)).toBe("1.535");
  });

  it("usage details never exceed their totals, and missing ones are zero", () => {
    expect(normalizeUsage({ prompt_tokens: 5, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 9 } })).toEqual({
      prompt_tokens: 5,
      completion_tokens: 2,
      total_tokens: 7,
      prompt_tokens_details: { cached_tokens: 5 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });
});

describe("event stream parsing", () => {
  const streamOf = (...parts: string[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(new TextEncoder().encode(p));
        c.close();
      },
    });
  const all = async (s: ReadableStream<Uint8Array>) => {
    const out: string[] = [];
    for await (const d of sseData(s, 1000)) out.push(d);
    return out;
  };

  it("joins events split anywhere, CRLF included, and skips comments and other fields", async () => {
    expect(await all(streamOf('data: {"a"', ":1}\r", "\n\r\n: keep-alive\n\nevent: x\nid: 1\ndata: [DO", "NE]\n\n"))).toEqual([
      '{"a":1}',
      "[DONE]",
    ]);
  });

  it("joins multi-line data and keeps a last event without a blank line", async () => {
    expect(await all(streamOf("data: a\ndata: b\n\ndata: c"))).toEqual(["a\nb", "c"]);
  });
});

describe("upstream errors", () => {
  it("maps statuses to the spec's codes", () => {
    const code = (status: number, body = "") => fromUpstreamStatus(status, body).code;
    expect(code(429)).toBe("model_rate_limited");
    expect(code(500)).toBe("model_request_failed");
    expect(code(502)).toBe("model_request_failed");
    expect(code(503)).toBe("model_unavailable");
    expect(code(404)).toBe("model_unavailable");
    expect(code(408)).toBe("model_timeout");
    expect(code(401)).toBe("model_request_failed");
    expect(code(400, '{"error":{"message":"bad temperature"}}')).toBe("invalid_request");
    expect(code(400, '{"error":{"message":"Prompt is too long: 300000 tokens > 200000 maximum"}}')).toBe(
      "context_length_exceeded",
    );
    expect(code(400, '{"error":{"message":"x","code":"context_length_exceeded"}}')).toBe("context_length_exceeded");
  });

  it("keeps the upstream's wording without credentials, signed URLs or control characters", () => {
    const said = safeMessage("bad key sk-abcdef1234567890 at https://cdn.x/y?sig=123&a=b\u0000 Bearer abc.def", "my-secret");
    expect(said).not.toContain("sk-abcdef");
    expect(said).not.toContain("sig=123");
    expect(said).not.toContain("abc.def");
    expect(said).not.toContain("\u0000");
    expect(safeMessage("leaked my-secret here", "my-secret")).toBe("leaked [redacted] here");
    expect(safeMessage("x".repeat(2000)).length).toBe(500);
  });

  it("reads Retry-After as seconds, as a date, and OpenAI's retry-after-ms", () => {
    expect(retryAfterMs(new Headers({ "Retry-After": "3" }))).toBe(3000);
    expect(retryAfterMs(new Headers({ "Retry-After": "3", "retry-after-ms": "250" }))).toBe(250);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "Retry-After": "Thu, 01 Jan 2026 00:00:10 GMT" }), now)).toBe(10_000);
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });
});

describe("openai-compatible adapter", () => {
  const config = {
    baseUrl: env.PROVIDER_DEEPSEEK_BASE_URL as string,
    apiKey: FAKE_UPSTREAM_KEY,
    timeoutMs: 2000,
    maxRetries: 2,
    backoffMs: 10,
    maxRetryAfterMs: 1000,
  };
  const request = (tag: string, behaviour: Record<string, unknown> = {}, stream = false) => ({
    body: { model: "m", messages: [{ role: "user", content: "x" }], stream, ...fake(tag, behaviour) },
    stream,
    maxCompletionTokens: 10,
    requestId: "req_unit",
  });
  const failure = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e as ApiError;
    }
    throw new Error("expected a failure");
  };

  it("an unreachable upstream: model_unavailable after the retries", async () => {
    const adapter = openAiCompatible({ ...config, baseUrl: "http://127.0.0.1:9/v1" });
    const e = await failure(adapter.complete(request(uniqueTag("unreachable")), new AbortController().signal));
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe("model_unavailable");
  });

  it("network errors before the first byte are retried", async () => {
    const tag = uniqueTag("flaky");
    const adapter = openAiCompatible(config);
    const res = await adapter.complete(request(tag, { scenario: "status", status: 502, times: 1 }), new AbortController().signal);
    expect(res.stream).toBe(false);
    expect(await fakeRequests(tag)).toHaveLength(2);
  });

  it("a stream that goes quiet for longer than the timeout fails with model_timeout", async () => {
    const adapter = openAiCompatible({ ...config, timeoutMs: 300 });
    const res = await adapter.complete(
      request(uniqueTag("quiet"), { interval_ms: 1000, text: "one two three" }, true),
      new AbortController().signal,
    );
    if (!res.stream) throw new Error("expected a stream");
    const e = await failure(
      (async () => {
        for (;;) if ((await res.chunks.next()).done) return;
      })(),
    );
    expect(e.code).toBe("model_timeout");
  });

  it("the caller's abort stops a retry wait at once", async () => {
    const adapter = openAiCompatible({ ...config, maxRetryAfterMs: 60_000 });
    const abort = new AbortController();
    const started = Date.now();
    const pending = adapter.complete(
      request(uniqueTag("abort"), { scenario: "status", status: 429, retry_after: "30" }),
      abort.signal,
    );
    setTimeout(() => abort.abort(new Error("client gone")), 100);
    const e = await failure(pending);
    expect(String(e)).toContain("client gone");
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe("sandbox pace", () => {
  const body = { model: "gpt-6-luna", messages: [{ role: "user", content: "pace" }], stream: true };

  it("streams one token per chunk at the scaled pace, and stops when aborted", async () => {
    // Scale 0.4: 140 ms to the first token, then 10 ms per token.
    const model = sandboxChat({ ...env, SANDBOX_LATENCY_SCALE: "0.4" });
    const abort = new AbortController();
    const started = Date.now();
    const res = await model.complete({ body, stream: true, maxCompletionTokens: 100, requestId: "r" }, abort.signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(130);
    if (!res.stream) throw new Error("expected a stream");
    const at: number[] = [];
    for (let i = 0; i < 6; i++) {
      await res.chunks.next();
      at.push(Date.now());
    }
    expect((at[5] as number) - (at[1] as number)).toBeGreaterThanOrEqual(35);
    abort.abort(new Error("client gone"));
    await expect(res.chunks.next()).rejects.toThrow("client gone");
  });
});
