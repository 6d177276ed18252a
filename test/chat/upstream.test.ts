import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { FAKE_UPSTREAM_KEY } from "./fake-upstream";
import { DEEPSEEK, expectedCredits, expectSettled, fake, fakeRequests, minus, openai, uniqueTag, waitUntil } from "./helpers";

const MODEL = "deepseek-flash";
let t: TestTenant;
let client: OpenAI;
beforeAll(async () => {
  t = await newTenant({ credits: "1000" });
  client = openai(t.api_key);
});

/** Chat params plus the passthrough field that steers the fake upstream. */
function params(tag: string, behaviour: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    model: MODEL,
    messages: [{ role: "user", content: "Tell me about Lisbon" }],
    max_tokens: 100,
    ...fake(tag, behaviour),
    ...extra,
  } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
}
const streaming = (p: OpenAI.ChatCompletionCreateParamsNonStreaming, includeUsage = true) =>
  ({
    ...p,
    stream: true,
    ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  }) as OpenAI.ChatCompletionCreateParamsStreaming;
const post = (body: unknown) => call("/v1/chat/completions", { key: t.api_key, body });

/** The client-side error of a failed call, in the envelope's terms. */
async function failure(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (e) {
    if (e instanceof OpenAI.APIError) return { status: e.status, error: e.error as any, headers: e.headers };
    throw e;
  }
  throw new Error("expected the call to fail");
}

describe("OpenAI-compatible upstream", () => {
  it("forwards the request (upstream model name, key, unknown fields) and relays the answer", async () => {
    const tag = uniqueTag("forward");
    const { data, response } = await client.chat.completions
      .create(params(tag, {}, { service_tier: "default", logit_bias: { "42": 1 } }))
      .withResponse();
    expect(data.model).toBe(MODEL);
    expect(data.id).toMatch(/^chatcmpl-/);
    expect(data.id).not.toContain("fake");
    expect(data.choices[0]?.message.content).toBe("Hello from the fake upstream about Tell me about Lisbon");
    const [seen, ...more] = await fakeRequests(tag);
    expect(more).toHaveLength(0);
    expect(seen?.authorization).toBe(`Bearer ${FAKE_UPSTREAM_KEY}`);
    expect(seen?.body).toMatchObject({
      model: "deepseek-flash",
      max_tokens: 100,
      service_tier: "default",
      logit_bias: { "42": 1 },
    });
    expect(seen?.body.stream).toBeUndefined();
    expect(response.headers.get("X-Credits-Charged")).toBe(expectedCredits(DEEPSEEK, data.usage as OpenAI.CompletionUsage));
  });

  it("charges cached and reasoning tokens at their own prices, exactly", async () => {
    // The fake reports more prompt tokens than the short message suggests: the excess is charged too.
    const before = (await expectSettled(t.tenant_id)).balance;
    const behaviour = { prompt_tokens: 1200, cached_tokens: 700, reasoning_tokens: 33 };
    const { data, response } = await client.chat.completions.create(params(uniqueTag("usage"), behaviour)).withResponse();
    expect(data.usage).toEqual({
      prompt_tokens: 1200,
      completion_tokens: 43,
      total_tokens: 1243,
      prompt_tokens_details: { cached_tokens: 700 },
      completion_tokens_details: { reasoning_tokens: 33 },
    });
    // 500 × 0.00003 + 700 × 0.0000006 + 10 × 0.00012 + 33 × 0.00012 (deepseek-flash's peak prices)
    expect(response.headers.get("X-Credits-Charged")).toBe("0.02058");
    const after = await expectSettled(t.tenant_id);
    expect(after.balance).toBe(minus(before, "0.02058"));
  });

  it("usage above the reservation (a prompt longer than estimated) is charged, as far as the balance goes", async () => {
    const small = await newTenant({ credits: "0.01" });
    // Reserved: about 12 prompt tokens and 10 output tokens. Reported: 100000 prompt tokens (3 credits).
    const { data, response } = await openai(small.api_key)
      .chat.completions.create(params(uniqueTag("excess"), { prompt_tokens: 100_000 }, { max_tokens: 10 }))
      .withResponse();
    expect(data.usage?.prompt_tokens).toBe(100_000);
    expect(response.headers.get("X-Credits-Charged")).toBe("0.01");
    const l = await expectSettled(small.tenant_id);
    expect(l.balance).toBe("0");
    expect(l.totals.captured).toBe("0.01");
  });

  it("streams chunks as the upstream sends them, with the usage chunk last, and charges it", async () => {
    const before = (await expectSettled(t.tenant_id)).balance;
    const tag = uniqueTag("stream");
    const behaviour = { prompt_tokens: 300, cached_tokens: 100, reasoning_tokens: 5, interval_ms: 30 };
    const started = Date.now();
    const stream = await client.chat.completions.create(streaming(params(tag, behaviour)));
    const arrivals: number[] = [];
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of stream) {
      arrivals.push(Date.now() - started);
      chunks.push(c);
    }
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("Hello from the fake upstream about Tell me about Lisbon");
    expect(chunks.every((c) => c.model === MODEL)).toBe(true);
    // Not buffered: the chunks arrive spread over the upstream's pace, not all at the end.
    expect((arrivals[arrivals.length - 1] as number) - (arrivals[1] as number)).toBeGreaterThan(150);
    const last = chunks[chunks.length - 1] as OpenAI.ChatCompletionChunk;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({
      prompt_tokens: 300,
      completion_tokens: 15,
      prompt_tokens_details: { cached_tokens: 100 },
    });
    const seen = (await fakeRequests(tag))[0];
    expect(seen?.body.stream).toBe(true);
    expect(seen?.body.stream_options).toEqual({ include_usage: true });
    const after = await expectSettled(t.tenant_id);
    expect(after.balance).toBe(minus(before, expectedCredits(DEEPSEEK, last.usage as OpenAI.CompletionUsage)));
  });

  it("asks the upstream for usage even when the client does not, and still charges it", async () => {
    const before = (await expectSettled(t.tenant_id)).balance;
    const tag = uniqueTag("nousage");
    const stream = await client.chat.completions.create(streaming(params(tag, { prompt_tokens: 50 }), false));
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect((await fakeRequests(tag))[0]?.body.stream_options).toEqual({ include_usage: true });
    // 50 input tokens and 10 output tokens, as the fake reported them: 50 × 0.00003 + 10 × 0.00012.
    const after = await expectSettled(t.tenant_id);
    expect(after.balance).toBe(minus(before, "0.0027"));
  });

  it("relays tool calls, whole and streamed", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: "function",
        function: { name: "lookup_city", parameters: { type: "object", properties: { city: { type: "string" } } } },
      },
    ];
    const whole = await client.chat.completions.create({ ...params(uniqueTag("tools")), tools });
    expect(whole.choices[0]?.finish_reason).toBe("tool_calls");
    const call0 = whole.choices[0]?.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call0.function).toEqual({ name: "lookup_city", arguments: '{"city": "Paris"}' });

    const stream = await client.chat.completions.create({ ...streaming(params(uniqueTag("tools-stream"))), tools });
    let args = "";
    for await (const c of stream) args += c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
    expect(JSON.parse(args)).toEqual({ city: "Paris" });
    await expectSettled(t.tenant_id);
  });
});

describe("retries before the first byte", () => {
  it("a 429 with Retry-After is waited out, then the answer comes through", async () => {
    const tag = uniqueTag("429-once");
    const started = Date.now();
    const res = await client.chat.completions.create(
      params(tag, { scenario: "status", status: 429, times: 1, retry_after: "1" }),
    );
    expect(res.choices[0]?.message.content).toContain("Lisbon");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect((await fakeRequests(tag)).map((r) => r.attempt)).toEqual([1, 2]);
  });

  it("500s are retried twice at most", async () => {
    const ok = uniqueTag("500-twice");
    await client.chat.completions.create(params(ok, { scenario: "status", status: 500, times: 2 }));
    expect(await fakeRequests(ok)).toHaveLength(3);
  });

  it("still 429 after the retries: 429 model_rate_limited with Retry-After; nothing charged", async () => {
    const before = (await expectSettled(t.tenant_id)).balance;
    const tag = uniqueTag("429-always");
    const f = await failure(() =>
      client.chat.completions.create(params(tag, { scenario: "status", status: 429, retry_after: "0" })),
    );
    expect(f.status).toBe(429);
    expect(f.error).toMatchObject({ code: "model_rate_limited", type: "model_error", retryable: true });
    expect(f.headers.get("retry-after")).toBe("0");
    expect(await fakeRequests(tag)).toHaveLength(3);
    expect((await expectSettled(t.tenant_id)).balance).toBe(before);
  });

  it("a Retry-After longer than the service waits is handed to the client at once", async () => {
    const tag = uniqueTag("429-long");
    const res = await post(params(tag, { scenario: "status", status: 429, retry_after: "120" }));
    expectError(res, 429, "model_rate_limited");
    expect(res.headers.get("Retry-After")).toBe("120");
    expect(await fakeRequests(tag)).toHaveLength(1);
  });

  it("500 after the retries: 502 model_request_failed", async () => {
    const tag = uniqueTag("500-always");
    const e = expectError(await post(params(tag, { scenario: "status", status: 500 })), 502, "model_request_failed");
    expect(e.retryable).toBe(true);
    expect(e.details.upstream_status).toBe(500);
    expect(await fakeRequests(tag)).toHaveLength(3);
    await expectSettled(t.tenant_id);
  });

  it("503 after the retries: 503 model_unavailable", async () => {
    const tag = uniqueTag("503-always");
    expectError(await post(params(tag, { scenario: "status", status: 503 })), 503, "model_unavailable");
    expect(await fakeRequests(tag)).toHaveLength(3);
  });

  it("a stream whose upstream fails before its first byte is a JSON error with the right status", async () => {
    const tag = uniqueTag("500-stream");
    const res = await post(streaming(params(tag, { scenario: "status", status: 502 })));
    expect(res.headers.get("content-type")).toContain("application/json");
    expectError(res, 502, "model_request_failed");
    await expectSettled(t.tenant_id);
  });

  it("other 4xx are not retried", async () => {
    const tag = uniqueTag("400");
    expectError(await post(params(tag, { scenario: "status", status: 400 })), 422, "invalid_request");
    expect(await fakeRequests(tag)).toHaveLength(1);
  });
});

describe("upstream failures in the spec's vocabulary", () => {
  it("no answer within the timeout: 504 model_timeout, not retried; nothing charged", async () => {
    const before = (await expectSettled(t.tenant_id)).balance;
    const tag = uniqueTag("hang");
    const e = expectError(await post(params(tag, { scenario: "hang", delay_ms: 10_000 })), 504, "model_timeout");
    expect(e.retryable).toBe(true);
    expect(await fakeRequests(tag)).toHaveLength(1);
    expect((await expectSettled(t.tenant_id)).balance).toBe(before);
  });

  it("an upstream 400 about the context length: 422 context_length_exceeded", async () => {
    const tag = uniqueTag("ctx");
    const e = expectError(await post(params(tag, { scenario: "context_length" })), 422, "context_length_exceeded", "/messages");
    expect(e.message).toContain("maximum context length");
    await expectSettled(t.tenant_id);
  });

  it("a prompt the card's window cannot hold is refused before the upstream is called", async () => {
    const tag = uniqueTag("ctx-local");
    const res = await post({ ...params(tag), messages: [{ role: "user", content: "語".repeat(1_100_000) }] });
    expectError(res, 422, "context_length_exceeded");
    expect(await fakeRequests(tag)).toHaveLength(0);
  });

  it("finish_reason content_filter: 502 content_filtered; nothing charged", async () => {
    const before = (await expectSettled(t.tenant_id)).balance;
    const e = expectError(await post(params(uniqueTag("cf"), { scenario: "content_filter" })), 502, "content_filtered");
    expect(e.retryable).toBe(false);
    expect((await expectSettled(t.tenant_id)).balance).toBe(before);
  });

  it("402 insufficient_balance before any upstream call", async () => {
    const poor = await newTenant({ credits: "0.001" });
    const tag = uniqueTag("402");
    const f = await failure(() => openai(poor.api_key).chat.completions.create(params(tag)));
    expect(f.status).toBe(402);
    expect(f.error.code).toBe("insufficient_balance");
    expect(await fakeRequests(tag)).toHaveLength(0);
    expect((await expectSettled(poor.tenant_id)).balance).toBe("0.001");
  });
});

describe("failures after streaming has started", () => {
  async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    try {
      for await (const c of stream) chunks.push(c);
    } catch (e) {
      return { chunks, error: e as InstanceType<typeof OpenAI.APIError> };
    }
    return { chunks, error: null };
  }

  it("a safety stop mid-stream ends with an error event; the delivered part is charged", async () => {
    const before = (await expectSettled(t.tenant_id)).balance;
    const stream = await client.chat.completions.create(
      streaming(params(uniqueTag("cf-stream"), { scenario: "content_filter" })),
    );
    const { chunks, error } = await collect(stream);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Hello from");
    expect(error?.error).toMatchObject({ code: "content_filtered", type: "safety_error", retryable: false });
    expect((error?.error as any)?.request_id).toBeTruthy();
    const after = await expectSettled(t.tenant_id);
    // The estimate of what was used: the prompt (as estimated) and the delivered text.
    expect(Number(minus(before, after.balance))).toBeGreaterThan(0);
    expect(Number(minus(before, after.balance))).toBeLessThan(0.002);
  });

  it("an upstream that drops the connection mid-stream: error event model_request_failed, then [DONE]", async () => {
    const res = await post(streaming(params(uniqueTag("drop"), { scenario: "drop", after: 3 })));
    expect(res.status).toBe(200);
    const events = res.text.split("\n\n").filter(Boolean);
    expect(events[events.length - 1]).toBe("data: [DONE]");
    const errorEvent = JSON.parse((events[events.length - 2] as string).slice(6));
    expect(errorEvent.error).toMatchObject({ code: "model_request_failed", type: "model_error", retryable: true });
    expect(errorEvent.error.request_id).toBe(res.headers.get("X-Request-Id"));
    const content = events
      .slice(0, -2)
      .map((e) => JSON.parse(e.slice(6)).choices[0]?.delta.content ?? "")
      .join("");
    expect(content).toBe("Hello from the");
    await expectSettled(t.tenant_id);
  });

  it("an error event from the upstream mid-stream is relayed in the envelope", async () => {
    const stream = await client.chat.completions.create(
      streaming(params(uniqueTag("err-event"), { scenario: "stream_error", after: 2 })),
    );
    const { chunks, error } = await collect(stream);
    expect(chunks.length).toBeGreaterThan(1);
    expect(error?.error).toMatchObject({ code: "model_request_failed" });
    await expectSettled(t.tenant_id);
  });

  it("a client that disconnects mid-stream aborts the upstream call and is charged only what it received", async () => {
    const before = (await expectSettled(t.tenant_id)).balance;
    const tag = uniqueTag("disconnect");
    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
    const stream = await client.chat.completions.create(
      streaming(params(tag, { text: long, interval_ms: 50, prompt_tokens: 20 }, { max_tokens: 1000 })),
    );
    let received = 0;
    for await (const _ of stream) {
      if (++received === 4) break; // leaving the loop aborts the request
    }
    const seen = await waitUntil(
      () => fakeRequests(tag),
      (r) => r[0]?.aborted === true,
    );
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.completed).toBe(false);
    const after = await expectSettled(t.tenant_id);
    const charged = Number(minus(before, after.balance));
    // Something was delivered, so something is charged; far less than the 60-word answer would cost.
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThan(expectedAtMost(60));
  });
});

/** An upper bound for the full answer: a generous prompt plus every word at the output price. */
function expectedAtMost(words: number): number {
  return Number(expectedCredits(DEEPSEEK, { prompt_tokens: 200, completion_tokens: words, total_tokens: 200 + words }));
}
