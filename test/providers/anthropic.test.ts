/**
 * The Anthropic upstream: the translation between the OpenAI chat wire format and the Messages API
 * (unit tests), and chat through the service with the official `openai` client against the
 * Anthropic fake (test/providers/fakes/anthropic.ts), which holds requests to Anthropic's documented rules.
 */
import { env } from "cloudflare:workers";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { chatFailure, describeAnthropic } from "../../src/providers/anthropic/client";
import { ChunkTranslator, eventsOfMessage } from "../../src/providers/anthropic/events";
import { JSON_INSTRUCTION, messagesRequest } from "../../src/providers/anthropic/request";
import { fromToolCallId, type ThinkingBlock, toolCallId } from "../../src/providers/anthropic/thinking";
import { understandingResult, understandingVerdict } from "../../src/providers/anthropic/understanding";
import type { JobFor } from "../../src/providers/jobs";
import { expectedCredits, expectSettled, openai, type Prices } from "../chat/helpers";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { pngInput } from "../helpers/media-fixtures";
import { fakeKey } from "./fakes/kit";
import { count, create, fakeRequests, follow, newTag } from "./harness";

const MODEL = "claude-sonnet-5-5";
/** From catalog-data/models/claude-sonnet-5-5.json (chat_completion). */
const SONNET: Prices = { input: "0.0002", cache_read: "0.00002", cache_write: "0.00025", output: "0.001", reasoning: "0.001" };

const THINKING: ThinkingBlock = { type: "thinking", thinking: "", signature: "c2lnbmF0dXJl" };

// ------------------------------------------------------------------------------------------ units

describe("OpenAI request → Messages request", () => {
  it("moves system and developer messages to `system` and keeps user text and images in order", () => {
    const body = messagesRequest(
      {
        model: MODEL,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
          {
            role: "user",
            content: [
              { type: "text", text: "Compare these." },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
              { type: "image_url", image_url: { url: "https://example.com/cat.jpg", detail: "high" } },
            ],
          },
        ],
      },
      500,
    );
    expect(body.system).toEqual([
      { type: "text", text: "Be brief." },
      { type: "text", text: "Answer in English." },
    ]);
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Compare these." },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
        ],
      },
    ]);
    expect(body).toMatchObject({ model: MODEL, max_tokens: 500, stream: true });
  });

  it("takes the request's own output limit, never above the service's budget, and maps the sampling and stop fields", () => {
    const base = { model: MODEL, messages: [{ role: "user", content: "hi" }] };
    expect(messagesRequest({ ...base, max_completion_tokens: 64, max_tokens: 99 }, 1000).max_tokens).toBe(64);
    expect(messagesRequest({ ...base, max_tokens: 5000 }, 1000).max_tokens).toBe(1000);
    const body = messagesRequest(
      { ...base, stop: "END", temperature: 1, top_p: 0.99, user: "u-42", reasoning_effort: "minimal" },
      10,
    );
    expect(body).toMatchObject({
      stop_sequences: ["END"],
      temperature: 1,
      top_p: 0.99,
      metadata: { user_id: "u-42" },
      output_config: { effort: "low" },
    });
    expect(messagesRequest({ ...base, stop: ["a", "b"] }, 10).stop_sequences).toEqual(["a", "b"]);
    expect(Object.keys(messagesRequest({ ...base, seed: 4, logprobs: true, frequency_penalty: 1 }, 10)).sort()).toEqual(
      ["max_tokens", "messages", "model", "stream"].sort(),
    );
  });

  it("maps tools and every tool_choice, with parallel_tool_calls false as disable_parallel_tool_use", () => {
    const tools = [
      {
        type: "function",
        function: { name: "weather", description: "Weather now", parameters: { type: "object", properties: {} } },
      },
      { type: "function", function: { name: "noargs", strict: true } },
    ];
    const base = { model: MODEL, messages: [{ role: "user", content: "hi" }], tools };
    const body = messagesRequest(base, 10);
    expect(body.tools).toEqual([
      { name: "weather", description: "Weather now", input_schema: { type: "object", properties: {} } },
      { name: "noargs", input_schema: { type: "object", properties: {} }, strict: true },
    ]);
    expect(body.tool_choice).toBeUndefined();
    const choice = (tool_choice: unknown, extra = {}) => messagesRequest({ ...base, tool_choice, ...extra }, 10).tool_choice;
    expect(choice("auto")).toEqual({ type: "auto" });
    expect(choice("none")).toEqual({ type: "none" });
    expect(choice("required")).toEqual({ type: "any" });
    expect(choice({ type: "function", function: { name: "weather" } })).toEqual({ type: "tool", name: "weather" });
    expect(choice(undefined, { parallel_tool_calls: false })).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(choice("required", { parallel_tool_calls: false })).toEqual({ type: "any", disable_parallel_tool_use: true });
  });

  it("turns assistant tool_calls into tool_use blocks (thinking first) and tool messages into one user turn of tool_results", () => {
    const id = toolCallId("toolu_01", [THINKING], MODEL);
    const body = messagesRequest(
      {
        model: MODEL,
        messages: [
          { role: "user", content: "Weather in Lisbon and Porto?" },
          {
            role: "assistant",
            content: "Checking.",
            tool_calls: [
              { id, type: "function", function: { name: "weather", arguments: '{"city":"Lisbon"}' } },
              { id: "call.other/1", type: "function", function: { name: "weather", arguments: "" } },
            ],
          },
          { role: "tool", tool_call_id: id, content: "18 C" },
          { role: "tool", tool_call_id: "call.other/1", content: [{ type: "text", text: "16 C" }] },
          { role: "user", content: "Thanks" },
        ],
        tools: [{ type: "function", function: { name: "weather" } }],
      },
      10,
    );
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Lisbon and Porto?" }] },
      {
        role: "assistant",
        content: [
          THINKING,
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_01", name: "weather", input: { city: "Lisbon" } },
          { type: "tool_use", id: "call_other_1", name: "weather", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_01", content: [{ type: "text", text: "18 C" }] },
          { type: "tool_result", tool_use_id: "call_other_1", content: [{ type: "text", text: "16 C" }] },
          { type: "text", text: "Thanks" },
        ],
      },
    ]);
  });

  it("asks for JSON: json_schema through output_config.format, json_object by instruction", () => {
    const base = { model: MODEL, messages: [{ role: "user", content: "hi" }] };
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
    expect(
      messagesRequest({ ...base, response_format: { type: "json_schema", json_schema: { name: "x", schema } } }, 10),
    ).toMatchObject({
      output_config: { format: { type: "json_schema", schema } },
    });
    expect(messagesRequest({ ...base, response_format: { type: "json_object" } }, 10).system).toEqual([
      { type: "text", text: JSON_INSTRUCTION },
    ]);
  });

  it("passes 5-minute cache_control on parts and at the top level, and refuses what Claude cannot take", () => {
    const body = messagesRequest(
      {
        model: MODEL,
        cache_control: { type: "ephemeral" },
        messages: [
          { role: "system", content: [{ type: "text", text: "Long manual", cache_control: { type: "ephemeral", ttl: "5m" } }] },
          { role: "user", content: "hi" },
        ],
      },
      10,
    );
    expect(body.system).toEqual([{ type: "text", text: "Long manual", cache_control: { type: "ephemeral" } }]);
    expect(body.cache_control).toEqual({ type: "ephemeral" });
    const refused = (b: Record<string, unknown>) => {
      try {
        messagesRequest({ model: MODEL, ...b }, 10);
      } catch (e) {
        return e instanceof ApiError ? { code: e.code, param: e.param } : e;
      }
      return null;
    };
    expect(
      refused({
        messages: [{ role: "user", content: [{ type: "text", text: "x", cache_control: { type: "ephemeral", ttl: "1h" } }] }],
      }),
    ).toEqual({
      code: "invalid_request",
      param: "/messages/0/content/0/cache_control",
    });
    expect(refused({ n: 2, messages: [{ role: "user", content: "x" }] })).toEqual({ code: "invalid_request", param: "/n" });
    expect(
      refused({
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/bmp;base64,Qk0=" } }] }],
      }),
    ).toEqual({
      code: "invalid_request",
      param: "/messages/0/content/0/image_url/url",
    });
    expect(
      refused({
        messages: [{ role: "assistant", tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "[1]" } }] }],
      }),
    ).toEqual({ code: "invalid_request", param: "/messages/0/tool_calls/0/function/arguments" });
  });
});

describe("thinking carried in tool call ids", () => {
  it("round-trips the blocks to the model that made them, and only to it", () => {
    const blocks: ThinkingBlock[] = [THINKING, { type: "redacted_thinking", data: "ZW5jcnlwdGVk" }];
    const id = toolCallId("toolu_abc", blocks, MODEL);
    expect(id.startsWith("toolu_abc.th1.")).toBe(true);
    expect(fromToolCallId(id, MODEL)).toEqual({ id: "toolu_abc", thinking: blocks });
    expect(fromToolCallId(id, "claude-opus-5-5")).toEqual({ id: "toolu_abc", thinking: [] });
    expect(fromToolCallId(`${id}garbage!`, MODEL)).toEqual({ id: "toolu_abc", thinking: [] });
    expect(toolCallId("toolu_abc", [], MODEL)).toBe("toolu_abc");
    expect(fromToolCallId("toolu_abc", MODEL)).toEqual({ id: "toolu_abc", thinking: [] });
  });
});

describe("Messages events → chat.completion.chunk", () => {
  const start = {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [],
      model: MODEL,
      stop_reason: null,
      usage: { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200, output_tokens: 1 },
    },
  };
  const run = (events: Record<string, any>[]) => {
    const t = new ChunkTranslator(MODEL, "secret", 1700000000);
    return { t, chunks: events.flatMap((e) => t.push(e)) };
  };

  it("sends the role first, then text, tool calls with index/id/name/arguments, and a final chunk with finish_reason and usage", () => {
    const { t, chunks } = run([
      start,
      { type: "ping" },
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "c2lnbmF0dXJl" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Let me " } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "check." } },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_9", name: "weather", input: {} } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: "" } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"city":' } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '"Lisbon"}' } },
      { type: "content_block_stop", index: 2 },
      { type: "content_block_start", index: 3, content_block: { type: "tool_use", id: "toolu_10", name: "clock", input: {} } },
      { type: "content_block_stop", index: 3 },
      { type: "some_future_event", data: 1 },
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: 60, output_tokens_details: { thinking_tokens: 20 } },
      },
      { type: "message_stop" },
    ]);
    const deltas = chunks.map((c) => c.choices[0].delta);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === "msg_1")).toBe(true);
    expect(deltas[0]).toEqual({ role: "assistant", content: "" });
    expect(deltas[1]).toEqual({ content: "Let me " });
    expect(deltas[2]).toEqual({ content: "check." });
    const firstCallId = toolCallId("toolu_9", [THINKING], MODEL);
    expect(deltas[3]).toEqual({
      tool_calls: [{ index: 0, id: firstCallId, type: "function", function: { name: "weather", arguments: "" } }],
    });
    expect(deltas[4]).toEqual({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] });
    expect(deltas[5]).toEqual({ tool_calls: [{ index: 0, function: { arguments: '"Lisbon"}' } }] });
    expect(deltas[6]).toEqual({
      tool_calls: [{ index: 1, id: "toolu_10", type: "function", function: { name: "clock", arguments: "" } }],
    });
    expect(deltas[7]).toEqual({ tool_calls: [{ index: 1, function: { arguments: "{}" } }] });
    const last = chunks.at(-1) as Record<string, any>;
    expect(last.choices[0]).toMatchObject({ delta: {}, finish_reason: "tool_calls" });
    expect(last.usage).toEqual({
      prompt_tokens: 1210,
      completion_tokens: 60,
      total_tokens: 1270,
      prompt_tokens_details: { cached_tokens: 1000, cache_creation_tokens: 200 },
      completion_tokens_details: { reasoning_tokens: 20 },
    });
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
    expect(t.done).toBe(true);
    expect(t.completion().choices[0]).toMatchObject({
      message: {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [
          { id: firstCallId, type: "function", function: { name: "weather", arguments: '{"city":"Lisbon"}' } },
          { id: "toolu_10", type: "function", function: { name: "clock", arguments: "{}" } },
        ],
      },
      finish_reason: "tool_calls",
    });
  });

  it("maps every stop reason", () => {
    const reasons: Record<string, string> = {
      end_turn: "stop",
      stop_sequence: "stop",
      pause_turn: "stop",
      max_tokens: "length",
      model_context_window_exceeded: "length",
      tool_use: "tool_calls",
      refusal: "content_filter",
    };
    for (const [stop, finish] of Object.entries(reasons)) {
      const { chunks } = run([
        start,
        { type: "message_delta", delta: { stop_reason: stop }, usage: { output_tokens: 3 } },
        { type: "message_stop" },
      ]);
      expect((chunks.at(-1) as Record<string, any>).choices[0].finish_reason, stop).toBe(finish);
    }
  });

  it("throws an error event as an ApiError in the public vocabulary, and refuses events out of order", () => {
    const t = new ChunkTranslator(MODEL, "secret");
    t.push(start);
    expect(() => t.push({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })).toThrow(
      expect.objectContaining({ code: "model_unavailable" }),
    );
    expect(() =>
      new ChunkTranslator(MODEL, "s").push({ type: "content_block_start", index: 0, content_block: { type: "text" } }),
    ).toThrow(expect.objectContaining({ code: "model_request_failed" }));
  });

  it("reads a whole Message as the events of its stream", () => {
    const message = {
      id: "msg_2",
      type: "message",
      role: "assistant",
      content: [
        { type: "text", text: "Hi" },
        { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } },
      ],
      stop_reason: "tool_use",
      usage: { input_tokens: 5, output_tokens: 7 },
    };
    const t = new ChunkTranslator(MODEL, "s");
    for (const e of eventsOfMessage(message)) t.push(e);
    expect(t.completion()).toMatchObject({
      choices: [
        {
          message: { content: "Hi", tool_calls: [{ id: "toolu_1", function: { name: "f", arguments: '{"a":1}' } }] },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 7 },
    });
  });
});

describe("Anthropic errors in the public vocabulary", () => {
  const body = (type: string, message: string) =>
    JSON.stringify({ type: "error", error: { type, message }, request_id: "req_1" });

  it("maps chat failures by status and error type", () => {
    const rate = chatFailure(429, body("rate_limit_error", "slow down"), 12, "k");
    expect(rate).toMatchObject({
      code: "model_rate_limited",
      retryAfter: 12,
      details: { upstream_status: 429, upstream_code: "rate_limit_error" },
    });
    expect(chatFailure(529, body("overloaded_error", "Overloaded"), undefined, "k").code).toBe("model_unavailable");
    expect(chatFailure(500, body("api_error", "boom"), undefined, "k").code).toBe("model_request_failed");
    expect(chatFailure(504, body("timeout_error", "late"), undefined, "k").code).toBe("model_timeout");
    expect(chatFailure(402, body("billing_error", "no credit"), undefined, "k").code).toBe("model_unavailable");
    expect(chatFailure(401, body("authentication_error", "invalid x-api-key"), undefined, "k").code).toBe("model_request_failed");
    expect(
      chatFailure(400, body("invalid_request_error", "prompt is too long: 1200000 tokens > 1000000 maximum"), undefined, "k")
        .code,
    ).toBe("context_length_exceeded");
    expect(chatFailure(400, body("invalid_request_error", "max_tokens: Field required"), undefined, "k").code).toBe(
      "invalid_request",
    );
    const leaked = chatFailure(400, body("invalid_request_error", "bad key sk-ant-api03-abcdefghijklmnop"), undefined, "k");
    expect(leaked.message).not.toContain("abcdefghijklmnop");
  });

  it("describes media failures for the shared HTTP client", () => {
    const h = new Headers();
    expect(describeAnthropic(529, body("overloaded_error", "Overloaded"), h)).toMatchObject({
      code: "model_unavailable",
      retryable: true,
    });
    expect(describeAnthropic(400, body("invalid_request_error", "Output blocked by content filtering policy"), h)).toMatchObject({
      code: "content_filtered",
      retryable: false,
    });
    expect(describeAnthropic(500, body("api_error", "x"), new Headers({ "x-should-retry": "false" }))).toMatchObject({
      retryable: false,
    });
    expect(describeAnthropic(429, body("rate_limit_error", "x"), h)).toEqual({ message: "x (rate_limit_error)" });
  });
});

describe("image understanding answers", () => {
  const job = { upstream_model: MODEL, request: { response_format: "json" } } as unknown as JobFor<"image_to_text">;
  const answer = (m: Record<string, unknown>) => new TextEncoder().encode(JSON.stringify({ type: "message", id: "msg_x", ...m }));

  it("tells a refused request from a filtered output, and reads text and usage", () => {
    const details = { type: "refusal", category: "cyber", explanation: "declined" };
    expect(understandingVerdict(answer({ content: [], stop_reason: "refusal", stop_details: details }))?.outcome).toBe(
      "safety_rejected",
    );
    expect(understandingVerdict(answer({ content: [{ type: "text", text: "Hel" }], stop_reason: "refusal" }))?.outcome).toBe(
      "content_filtered",
    );
    expect(
      understandingVerdict(answer({ content: [{ type: "thinking", thinking: "", signature: "s" }], stop_reason: "max_tokens" }))
        ?.outcome,
    ).toBe("model_output_invalid");
    expect(understandingVerdict(new TextEncoder().encode("{}"))?.outcome).toBe("model_output_invalid");
    const ok = answer({
      content: [
        { type: "thinking", thinking: "", signature: "s" },
        { type: "text", text: '```json\n{"a": 1}\n```' },
      ],
      stop_reason: "end_turn",
      usage: {
        input_tokens: 900,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 0,
        output_tokens: 50,
        output_tokens_details: { thinking_tokens: 20 },
      },
    });
    expect(understandingVerdict(ok)).toBeNull();
    expect(understandingResult(ok, job)).toMatchObject({
      text: '{"a": 1}',
      usage: { input_tokens: 900, cache_read_tokens: 100, output_tokens: 30, reasoning_tokens: 20 },
    });
  });
});

// ---------------------------------------------------------------------------- through the service

let t: TestTenant;
let client: OpenAI;
beforeAll(async () => {
  t = await newTenant({ credits: "1000" });
  client = openai(t.api_key);
});

const ask = (tag: string, extra = "") => [
  { role: "user" as const, content: `Tell me about lighthouses #tag:${tag} ${extra}`.trim() },
];

async function failure(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (e) {
    if (e instanceof OpenAI.APIError) return { status: e.status, error: e.error as any, headers: e.headers };
    throw e;
  }
  throw new Error("expected the call to fail");
}

const WEATHER = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Current weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

describe("chat through the service", () => {
  it("answers a non-streamed request with Anthropic's key, version and the upstream model, priced from the usage", async () => {
    const tag = newTag("anthropic-chat");
    const { data, response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: "system", content: "Be brief." }, ...ask(tag)], max_tokens: 300 })
      .withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe(MODEL);
    expect(data.choices[0]?.message.content).toContain("lighthouses");
    expect(data.choices[0]?.finish_reason).toBe("stop");
    const [sent] = (await fakeRequests("anthropic", tag)) as any[];
    expect(sent.headers["x-api-key"]).toBe(fakeKey("anthropic"));
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent.authorization).toBeNull();
    expect(sent.body).toMatchObject({
      model: MODEL,
      max_tokens: 300,
      stream: true,
      system: [{ type: "text", text: "Be brief." }],
    });
    const usage = data.usage as OpenAI.CompletionUsage;
    expect(usage.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
    expect(response.headers.get("X-Credits-Charged")).toBe(expectedCredits(SONNET, usage));
    await expectSettled(t.tenant_id);
  });

  it("streams: the role first, text deltas, a final finish_reason, then the usage chunk", async () => {
    const tag = newTag("anthropic-stream");
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: ask(tag),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toContain("lighthouses");
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(1);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe("stop");
    const usage = chunks.at(-1)?.usage as OpenAI.CompletionUsage;
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeGreaterThan(0);
    await expectSettled(t.tenant_id);
  });

  it("round-trips a tool call: tool_use → tool_calls, and the result back as tool_result with the turn's thinking", async () => {
    const tag = newTag("anthropic-tools");
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "user", content: `What is the weather in Lisbon? #tag:${tag}` },
    ];
    const first = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] });
    const choice = first.choices[0] as OpenAI.ChatCompletion.Choice;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: expect.any(String) });
    messages.push(choice.message, { role: "tool", tool_call_id: call.id, content: "18 C and sunny" });
    const second = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] });
    expect(second.choices[0]?.message.content).toContain("18 C and sunny");
    expect(second.choices[0]?.finish_reason).toBe("stop");

    const [asked, answered] = (await fakeRequests("anthropic", tag)) as any[];
    expect(asked.body.tools).toEqual([
      { name: "get_weather", description: "Current weather in a city", input_schema: WEATHER.function.parameters },
    ]);
    const turn = answered.body.messages[1];
    expect(turn.role).toBe("assistant");
    expect(turn.content.map((b: any) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    const toolUse = turn.content[2];
    expect(answered.body.messages[2].content[0]).toEqual({
      type: "tool_result",
      tool_use_id: toolUse.id,
      content: [{ type: "text", text: "18 C and sunny" }],
    });
    expect(call.id.startsWith(toolUse.id)).toBe(true);
  });

  it("needs the thinking the tool call id carries: Anthropic refuses a tool round trip without it", async () => {
    const tag = newTag("anthropic-tools-bare");
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: `Weather in Faro? #tag:${tag}` }];
    const first = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] });
    const call = first.choices[0]?.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.id).toContain(".th1.");
    const bare = call.id.slice(0, call.id.indexOf("."));
    messages.push(
      { role: "assistant", content: null, tool_calls: [{ ...call, id: bare }] },
      { role: "tool", tool_call_id: bare, content: "20 C" },
    );
    const f = await failure(() => client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] }));
    expect(f.status).toBe(422);
    expect(f.error).toMatchObject({ code: "invalid_request" });
    expect(f.error.message).toContain("thinking");
  });

  it("streams tool calls with index, id, name and argument fragments, and the accumulated call round-trips", async () => {
    const tag = newTag("anthropic-stream-tools");
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: `Weather in Porto? #tag:${tag}` }];
    const stream = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER], stream: true });
    let id = "";
    let name = "";
    let args = "";
    let finish: string | null = null;
    let fragments = 0;
    for await (const chunk of stream) {
      const c = chunk.choices[0];
      for (const d of c?.delta.tool_calls ?? []) {
        expect(d.index).toBe(0);
        if (d.id) id = d.id;
        if (d.function?.name) name = d.function.name;
        if (d.function?.arguments) {
          args += d.function.arguments;
          fragments++;
        }
      }
      finish = c?.finish_reason ?? finish;
    }
    expect(finish).toBe("tool_calls");
    expect(name).toBe("get_weather");
    expect(fragments).toBeGreaterThan(1);
    expect(JSON.parse(args)).toEqual({ city: expect.any(String) });
    messages.push(
      { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: args } }] },
      { role: "tool", tool_call_id: id, content: "12 C" },
    );
    const done = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER] });
    expect(done.choices[0]?.message.content).toContain("12 C");
  });

  it("reports cache writes and reads: prompt_tokens counts both, cached_tokens the reads, each priced by the card", async () => {
    const tag = newTag("anthropic-cache");
    const manual = `Lighthouse keeping manual. ${"Trim the wick, polish the lens, log the weather. ".repeat(120)}`;
    const body = {
      model: MODEL,
      max_tokens: 200,
      messages: [
        { role: "system", content: [{ type: "text", text: manual, cache_control: { type: "ephemeral" } }] },
        { role: "user", content: `Summarise the manual #tag:${tag}` },
      ],
    } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
    const first = await client.chat.completions.create(body).withResponse();
    const second = await client.chat.completions.create(body).withResponse();
    const u1 = first.data.usage as OpenAI.CompletionUsage;
    const u2 = second.data.usage as OpenAI.CompletionUsage;
    expect(u1.prompt_tokens_details?.cached_tokens).toBe(0);
    // The first call wrote the cache: those tokens are billed at the card's cache-write price.
    expect((u1.prompt_tokens_details as { cache_creation_tokens?: number }).cache_creation_tokens).toBeGreaterThan(1000);
    expect(first.response.headers.get("X-Credits-Charged")).toBe(expectedCredits(SONNET, u1));
    expect(u2.prompt_tokens_details?.cached_tokens).toBeGreaterThan(1000);
    expect(u2.prompt_tokens).toBe(u1.prompt_tokens);
    expect(second.response.headers.get("X-Credits-Charged")).toBe(expectedCredits(SONNET, u2));
    expect(Number(second.response.headers.get("X-Credits-Charged"))).toBeLessThan(
      Number(first.response.headers.get("X-Credits-Charged")),
    );
    const sent = (await fakeRequests("anthropic", tag)) as any[];
    expect(sent[0].body.system[0].cache_control).toEqual({ type: "ephemeral" });
  });

  it("sends images as base64 or URL sources", async () => {
    const tag = newTag("anthropic-image");
    const png = (await pngInput(32, 32)).data_uri;
    await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url: png } },
            { type: "text", text: `What is this? #tag:${tag}` },
          ],
        },
      ],
    });
    const [sent] = (await fakeRequests("anthropic", tag)) as any[];
    expect(sent.body.messages[0].content[0]).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: png.slice("data:image/png;base64,".length) },
    });
  });
});

describe("chat failures", () => {
  it("retries a 429 after its retry-after and then answers", async () => {
    const tag = newTag("anthropic-429-once");
    const res = await client.chat.completions.create({ model: MODEL, messages: ask(tag, "#fake:submit_429") });
    expect(res.choices[0]?.finish_reason).toBe("stop");
    const sent = await fakeRequests("anthropic", tag);
    expect(count(sent, "submit")).toBe(2);
    expect((sent[1]?.at as number) - (sent[0]?.at as number)).toBeGreaterThanOrEqual(900);
  });

  it("answers 429 model_rate_limited with Retry-After when Anthropic asks for a longer wait", async () => {
    const tag = newTag("anthropic-429");
    const f = await failure(() =>
      client.chat.completions.create({ model: MODEL, messages: ask(tag, "#anthropic:rate_limited") }),
    );
    expect(f.status).toBe(429);
    expect(f.error).toMatchObject({ code: "model_rate_limited", retryable: true });
    expect(f.headers?.get("retry-after")).toBe("30");
    expect(count(await fakeRequests("anthropic", tag), "submit")).toBe(1);
    await expectSettled(t.tenant_id);
  });

  it("answers 503 model_unavailable when Anthropic is overloaded (529), after its retries", async () => {
    const tag = newTag("anthropic-529");
    const f = await failure(() => client.chat.completions.create({ model: MODEL, messages: ask(tag, "#fake:down") }));
    expect(f.status).toBe(503);
    expect(f.error).toMatchObject({ code: "model_unavailable", retryable: true });
    expect(count(await fakeRequests("anthropic", tag), "submit")).toBe(3);
    await expectSettled(t.tenant_id);
  });

  it("ends a stream with an error event when Anthropic sends one mid-stream, charging what was delivered", async () => {
    const tag = newTag("anthropic-stream-error");
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: ask(tag, "#anthropic:stream_error"),
      stream: true,
    });
    const f = await failure(async () => {
      for await (const _ of stream) {
        // read until the error
      }
    });
    expect(f.error).toMatchObject({ code: "model_unavailable" });
    await expectSettled(t.tenant_id);
  });

  it("turns a refusal into content_filtered and charges nothing", async () => {
    const tenant = await newTenant({ credits: "1000" });
    const f = await failure(() =>
      openai(tenant.api_key).chat.completions.create({ model: MODEL, messages: ask(newTag("refusal"), "#fake:safety_input") }),
    );
    expect(f.error).toMatchObject({ code: "content_filtered" });
    const l = await expectSettled(tenant.tenant_id);
    expect(l.balance).toBe("1000");
  });

  it("rejects a request Claude cannot answer before calling it", async () => {
    const tag = newTag("anthropic-n");
    const res = await call("/v1/chat/completions", { key: t.api_key, body: { model: MODEL, n: 2, messages: ask(tag) } });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: "invalid_request", param: "/n" });
    expect(count(await fakeRequests("anthropic", tag), "submit")).toBe(0);
  });
});

describe("image understanding through the service", () => {
  it("sends the stored image as base64 before the prompt, with the card's upstream model, and bills the usage", async () => {
    const tenant = await newTenant({ credits: "1000" });
    const tag = newTag("anthropic-understanding");
    const created = await create(
      tenant,
      {
        path: "/v1/images/responses",
        provider: "anthropic",
        body: (text, inputs) => ({ model: MODEL, prompt: text, images: [inputs.png], max_output_tokens: 256 }),
      },
      tag,
      [],
      {},
      { png: await pngInput(64, 48) },
    );
    const { task } = await follow(tenant, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.output.text).toContain("64x48");
    const [sent] = (await fakeRequests("anthropic", tag)) as any[];
    expect(sent.body.model).toBe(MODEL);
    expect(sent.body.max_tokens).toBe(256);
    expect(sent.body.stream).toBeUndefined();
    expect(sent.body.messages[0].content.map((b: any) => b.type)).toEqual(["image", "text"]);
    expect(sent.body.messages[0].content[0].source).toMatchObject({ type: "base64", media_type: "image/png" });
    expect(task.usage.input_tokens).toBeGreaterThan(0);
    expect(task.usage.reasoning_tokens).toBeGreaterThan(0);
    expect(Number(task.usage.credits)).toBeGreaterThan(0);
    expect((env as unknown as Record<string, string>).PROVIDER_ANTHROPIC_API_KEY).toBe(fakeKey("anthropic"));
  });
});
