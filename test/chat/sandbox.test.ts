import type OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { expectedCredits, expectSettled, LUNA, minus, openai } from "./helpers";

let t: TestTenant;
let client: OpenAI;
beforeAll(async () => {
  t = await newTenant({ credits: "1000" });
  client = openai(t.api_key);
});

const weatherTool: OpenAI.ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather in a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } },
      required: ["city", "unit"],
    },
  },
};

describe("chat completion on the sandbox model", () => {
  it("auto answers with the lowest-ranked live chat model, deterministically, and charges the usage", async () => {
    const before = (await expectSettled(t.tenant_id)).balance;
    const params = { model: "auto", messages: [{ role: "user" as const, content: "Hello there" }], max_tokens: 200 };
    const { data, response } = await client.chat.completions.create(params).withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.id).toMatch(/^chatcmpl-/);
    expect(data.model).toBe("gpt-6-luna");
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]?.message.role).toBe("assistant");
    expect(data.choices[0]?.message.content).toContain('You said: "Hello there"');
    expect(data.choices[0]?.finish_reason).toBe("stop");
    const u = data.usage as OpenAI.CompletionUsage;
    expect(u.prompt_tokens).toBeGreaterThan(0);
    expect(u.completion_tokens).toBeGreaterThan(0);
    expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);
    expect(u.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(u.completion_tokens_details?.reasoning_tokens).toBe(0);
    const charged = response.headers.get("X-Credits-Charged") as string;
    expect(charged).toBe(expectedCredits(LUNA, u));
    expect(response.headers.get("X-Request-Id")).toBeTruthy();
    const after = await expectSettled(t.tenant_id);
    expect(after.balance).toBe(minus(before, charged));

    const again = await client.chat.completions.create(params);
    expect(again.choices[0]?.message.content).toBe(data.choices[0]?.message.content);
    expect(again.usage).toEqual(data.usage);
  });

  it("streams chunks, then the usage chunk when asked, and charges the same usage", async () => {
    const messages = [{ role: "user" as const, content: "Stream this please" }];
    const whole = await client.chat.completions.create({ model: "gpt-6-luna", messages });
    const mid = (await expectSettled(t.tenant_id)).balance;
    const stream = await client.chat.completions.create({
      model: "gpt-6-luna",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.length).toBeGreaterThan(5);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "gpt-6-luna")).toBe(true);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe(whole.choices[0]?.message.content);
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish?.choices[0]?.finish_reason).toBe("stop");
    const last = chunks[chunks.length - 1] as OpenAI.ChatCompletionChunk;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(whole.usage);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const after = await expectSettled(t.tenant_id);
    const streamCharge = expectedCredits(LUNA, last.usage as OpenAI.CompletionUsage);
    expect(after.balance).toBe(minus(mid, streamCharge));
  });

  it("without include_usage no chunk carries usage, and the raw stream ends with [DONE]", async () => {
    const res = await call("/v1/chat/completions", {
      key: t.api_key,
      body: { model: "gpt-6-luna", messages: [{ role: "user", content: "raw" }], stream: true },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("X-Credits-Charged")).toBeNull();
    const events = res.text.split("\n\n").filter(Boolean);
    expect(events[events.length - 1]).toBe("data: [DONE]");
    for (const e of events.slice(0, -1)) {
      expect(e.startsWith("data: ")).toBe(true);
      const chunk = JSON.parse(e.slice(6));
      expect(chunk).not.toHaveProperty("usage");
      expect(chunk.choices).toHaveLength(1);
    }
    await expectSettled(t.tenant_id);
  });

  it("calls a tool when asked, and answers from the tool's result", async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: 'Call get_weather for "Paris"' }];
    const first = await client.chat.completions.create({
      model: "gpt-6-luna",
      messages,
      tools: [weatherTool],
      reasoning_effort: "none",
    });
    const choice = first.choices[0] as OpenAI.ChatCompletion.Choice;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    const toolCall = choice.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(toolCall.type).toBe("function");
    expect(toolCall.function.name).toBe("get_weather");
    expect(JSON.parse(toolCall.function.arguments)).toEqual({ city: "Paris", unit: "c" });

    messages.push(choice.message as OpenAI.ChatCompletionMessageParam, {
      role: "tool",
      tool_call_id: toolCall.id,
      content: "18 C, sunny",
    });
    const second = await client.chat.completions.create({
      model: "gpt-6-luna",
      messages,
      tools: [weatherTool],
      reasoning_effort: "none",
    });
    expect(second.choices[0]?.finish_reason).toBe("stop");
    expect(second.choices[0]?.message.content).toBe("The get_weather tool returned: 18 C, sunny");

    // Streamed, the tool call arrives in pieces that add up to the same call.
    const stream = await client.chat.completions.create({
      model: "gpt-6-luna",
      messages: messages.slice(0, 1),
      tools: [weatherTool],
      reasoning_effort: "none",
      stream: true,
    });
    let args = "";
    let name = "";
    let finish: string | null = null;
    for await (const c of stream) {
      const call = c.choices[0]?.delta.tool_calls?.[0];
      name += call?.function?.name ?? "";
      args += call?.function?.arguments ?? "";
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe("get_weather");
    expect(JSON.parse(args)).toEqual({ city: "Paris", unit: "c" });
    expect(finish).toBe("tool_calls");

    // Tools offered but not asked for: a plain answer; tool_choice "none" never calls.
    const plain = await client.chat.completions.create({
      model: "gpt-6-luna",
      messages: [{ role: "user", content: "Just chat" }],
      tools: [weatherTool],
      reasoning_effort: "none",
    });
    expect(plain.choices[0]?.message.tool_calls).toBeUndefined();
    const none = await client.chat.completions.create({
      model: "gpt-6-luna",
      messages,
      tools: [weatherTool],
      tool_choice: "none",
      reasoning_effort: "none",
    });
    expect(none.choices[0]?.message.tool_calls).toBeUndefined();
    await expectSettled(t.tenant_id);
  });

  it("honours n, stop, max_tokens and JSON output", async () => {
    const messages = [{ role: "user" as const, content: "Options test" }];
    const two = await client.chat.completions.create({ model: "gpt-6-luna", messages, n: 2 });
    expect(two.choices.map((c) => c.index)).toEqual([0, 1]);
    expect(two.choices[0]?.message.content).toContain("choice 1 of 2");
    expect(two.choices[1]?.message.content).toContain("choice 2 of 2");

    const stopped = await client.chat.completions.create({ model: "gpt-6-luna", messages, stop: ["You said"] });
    expect(stopped.choices[0]?.message.content).not.toContain("You said");
    expect(stopped.choices[0]?.finish_reason).toBe("stop");

    const short = await client.chat.completions.create({ model: "gpt-6-luna", messages, max_completion_tokens: 3 });
    expect(short.choices[0]?.finish_reason).toBe("length");
    expect(short.usage?.completion_tokens).toBe(3);

    const json = await client.chat.completions.create({
      model: "gpt-6-luna",
      messages,
      response_format: { type: "json_object" },
    });
    const parsed = JSON.parse(json.choices[0]?.message.content as string);
    expect(parsed.model).toBe("gpt-6-luna");
    expect(parsed.answer).toContain("Options test");
    await expectSettled(t.tenant_id);
  });

  it("accepts every role and image parts; each image part adds a fixed token allowance", async () => {
    const text = await client.chat.completions.create({
      model: "gpt-6-luna",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
        { role: "user", name: "ada", content: [{ type: "text", text: "What is this?" }] },
      ],
    });
    const withImage = await client.chat.completions.create({
      model: "gpt-6-luna",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
        {
          role: "user",
          name: "ada",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } },
          ],
        },
      ],
    });
    expect(withImage.choices[0]?.message.content).toContain("with 1 image");
    expect((withImage.usage?.prompt_tokens ?? 0) - (text.usage?.prompt_tokens ?? 0)).toBe(1000);
  });

  it("auto skips cards that lack a control the request uses", async () => {
    const res = await client.chat.completions.create({
      model: "auto",
      messages: [{ role: "user", content: "warm" }],
      temperature: 0.2,
    });
    // The first live card in auto's order (deprecated cards last) that offers temperature.
    const detail = (await call("/v1/catalog/capabilities/chat_completion", { key: t.api_key })).json;
    const expected = detail.models.find(
      (m: any) => m.available && m.status === "live" && m.controls.some((c: any) => c.field === "temperature"),
    );
    expect(detail.models[0].controls.some((c: any) => c.field === "temperature")).toBe(false);
    expect(res.model).toBe(expected.model);
  });

  it("is described in the OpenAPI document as a ga, internal Chat operation", async () => {
    const op = (await call("/openapi.json")).json.paths["/v1/chat/completions"].post;
    expect(op.tags).toEqual(["Chat"]);
    expect(op["x-lifecycle"]).toBe("ga");
    expect(op["x-visibility"]).toBe("internal");
    expect(Object.keys(op.responses["200"].content)).toEqual(["application/json", "text/event-stream"]);
    for (const status of ["402", "422", "502", "503"]) expect(op.responses[status]).toBeDefined();
  });

  it("echoes the client's X-Request-Id", async () => {
    const res = await call("/v1/chat/completions", {
      key: t.api_key,
      headers: { "X-Request-Id": "client-chat-1" },
      body: { messages: [{ role: "user", content: "id" }] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Request-Id")).toBe("client-chat-1");
  });
});

describe("chat completion refusals", () => {
  const post = (body: unknown, key: string | null = t.api_key) => call("/v1/chat/completions", { key, body });
  const hi = [{ role: "user", content: "hi" }];

  it("401 without a key; 403 forbidden without the chat permission", async () => {
    expectError(await post({ messages: hi }, null), 401, "unauthorized");
    const noChat = await newTenant({ permissions: ["catalog:read", "tasks:read", "tasks:write"] });
    const e = expectError(await post({ messages: hi }, noChat.api_key), 403, "forbidden");
    expect(e.details.required_permission).toBe("chat");
  });

  it("400 unsupported_model for an unknown model and for a model without chat", async () => {
    const e = expectError(await post({ model: "gpt-9000", messages: hi }), 400, "unsupported_model", "/model");
    expect(e.details.supported_models).toContain("auto");
    expect(e.details.supported_models).toContain("gpt-6-luna");
    expect(e.details.supported_models).not.toContain("flux-2-pro");
    expectError(await post({ model: "flux-2-pro", messages: hi }), 400, "unsupported_model", "/model");
  });

  it("422 unsupported_option for a control the card does not list or a value it does not take", async () => {
    const e = expectError(
      await post({ model: "gpt-6-luna", messages: hi, temperature: 0.5 }),
      422,
      "unsupported_option",
      "/temperature",
    );
    expect(e.details.candidate_failures[0]).toMatchObject({ model: "gpt-6-luna", code: "unsupported_temperature" });
    expectError(await post({ model: "claude-opus-5-5", messages: hi, seed: 7 }), 422, "unsupported_option", "/seed");
    expectError(await post({ model: "gpt-6-luna", messages: hi, max_tokens: 500_000 }), 422, "unsupported_option", "/max_tokens");
    expectError(
      await post({ model: "gpt-6-luna", messages: hi, max_completion_tokens: 500_000 }),
      422,
      "unsupported_option",
      "/max_completion_tokens",
    );
    expectError(await post({ model: "gpt-6.1-sol", messages: hi, tools: [weatherTool] }), 422, "unsupported_option", "/tools");
  });

  it("422 for functions on GPT-6 Luna unless reasoning_effort is none, and for what Gemini 3.8 does not take", async () => {
    for (const reasoning_effort of [undefined, "medium"]) {
      const e = expectError(
        await post({ model: "gpt-6-luna", messages: hi, tools: [weatherTool], reasoning_effort }),
        422,
        "unsupported_option",
        "/reasoning_effort",
      );
      expect(e.details.candidate_failures[0]).toMatchObject({
        model: "gpt-6-luna",
        code: "rule_tools_need_reasoning_effort_none",
        supported: "none",
      });
    }
    // Gemini from 3.6 on: sampling parameters are deprecated (not offered), and 3.8 thinks at low, medium or high only.
    for (const sampling of [{ temperature: 0.5 }, { top_p: 0.9 }]) {
      const field = Object.keys(sampling)[0];
      expectError(await post({ model: "gemini-3.8-flash", messages: hi, ...sampling }), 422, "unsupported_option", `/${field}`);
    }
    const minimal = expectError(
      await post({ model: "gemini-3.8-flash", messages: hi, reasoning_effort: "minimal" }),
      422,
      "unsupported_option",
      "/reasoning_effort",
    );
    expect(minimal.details.candidate_failures[0]).toMatchObject({ code: "rule_thinking_levels" });
    expect((await post({ model: "gemini-3.8-flash", messages: hi, reasoning_effort: "high" })).status).toBe(200);
    // Without tools any effort is fine; with tools and none the call is answered.
    expect((await post({ model: "gpt-6-luna", messages: hi, reasoning_effort: "medium" })).status).toBe(200);
    expect((await post({ model: "gpt-6-luna", messages: hi, tools: [weatherTool], reasoning_effort: "none" })).status).toBe(200);
  });

  it("422 no_eligible_model when auto has no card for the request", async () => {
    const e = expectError(await post({ model: "auto", messages: hi, seed: 1, max_tokens: 100_000 }), 422, "no_eligible_model");
    expect(e.details.candidate_failures.length).toBeGreaterThan(0);
  });

  it("422 invalid_request for malformed bodies, with a pointer", async () => {
    expectError(await post({}), 422, "invalid_request", "/messages");
    expectError(await post({ messages: [] }), 422, "invalid_request", "/messages");
    expectError(await post({ messages: [{ role: "wizard", content: "x" }] }), 422, "invalid_request");
    expectError(await post({ messages: [{ role: "tool", content: "x" }] }), 422, "invalid_request");
    expectError(await post({ messages: hi, temperature: 3 }), 422, "invalid_request", "/temperature");
    expectError(await post({ messages: hi, tool_choice: "required" }), 422, "invalid_request", "/tool_choice");
    expectError(await post({ messages: hi, n: 0 }), 422, "invalid_request", "/n");
    expectError(await post({ messages: [{ role: "user", content: [{ type: "audio", data: "x" }] }] }), 422, "invalid_request");
  });

  it("422 context_length_exceeded before anything is reserved when the prompt cannot fit", async () => {
    const before = await expectSettled(t.tenant_id);
    const huge = "界".repeat(1_050_001);
    const e = expectError(
      await post({ model: "gpt-6-luna", messages: [{ role: "user", content: huge }] }),
      422,
      "context_length_exceeded",
      "/messages",
    );
    expect(e.details.candidate_failures[0].supported.context_window).toBe(1_050_000);
    expect((await expectSettled(t.tenant_id)).balance).toBe(before.balance);
  });

  it("402 insufficient_balance when the balance cannot cover the most the request may cost; nothing is held", async () => {
    const poor = await newTenant({ credits: "0.01" });
    // gpt-6-luna may write 128000 tokens at 0.00005: 6.4 credits before the prompt.
    const e = expectError(await post({ model: "gpt-6-luna", messages: hi }, poor.api_key), 402, "insufficient_balance");
    expect(e.retryable).toBe(false);
    expect(e.details.balance_credits).toBe("0.01");
    const l = await expectSettled(poor.tenant_id);
    expect(l.balance).toBe("0.01");
    // A small enough limit fits the same balance.
    const ok = await post({ model: "gpt-6-luna", messages: hi, max_tokens: 50 }, poor.api_key);
    expect(ok.status).toBe(200);
  });
});
