/**
 * A fake OpenAI-compatible chat upstream on 127.0.0.1, speaking the real wire format (JSON and
 * server-sent events). Each request picks its behaviour with a top-level `fake` object, which the
 * service passes through like any unknown field:
 *   {tag, scenario: "ok"}                        an answer; `first_byte_ms`, `interval_ms`, `text`,
 *                                                `prompt_tokens`, `cached_tokens`, `reasoning_tokens`,
 *                                                `usage_format: "deepseek"` (cache hits as DeepSeek documents them:
 *                                                `prompt_cache_hit_tokens`/`prompt_cache_miss_tokens`, no prompt_tokens_details)
 *   {scenario: "status", status, times?, retry_after?}  that status for the first `times` attempts
 *   {scenario: "hang", delay_ms?}                no headers until the delay (or the caller leaves)
 *   {scenario: "drop", after}                    `after` chunks, then the connection is destroyed
 *   {scenario: "content_filter"}                 stopped with finish_reason content_filter
 *   {scenario: "stream_error", after?}           an `{"error": …}` event after `after` chunks
 *   {scenario: "context_length"}                 400 context_length_exceeded, as OpenAI sends it
 *   {scenario: "prompt_refused"}                 400 content_policy_violation: the prompt refused on content policy
 *   {fail_models: [...], status?}               any scenario, but a request for one of these upstream models gets
 *                                                `status` (default 500), so a card's routes can fail one by one
 * Every attempt is recorded by tag: GET /_fake/requests?tag=<tag>.
 * Used as a vitest globalSetup (the URL is provided as `fakeOpenAiUrl`) and by bench/chat-overhead.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { TestProject } from "vitest/node";

export const FAKE_UPSTREAM_KEY = "fake-upstream-key-0123456789";

declare module "vitest" {
  export interface ProvidedContext {
    fakeOpenAiUrl: string;
  }
}

export interface FakeRecord {
  tag: string;
  attempt: number;
  authorization: string | null;
  body: any;
  /** The caller closed the connection before the answer was complete. */
  aborted: boolean;
  completed: boolean;
}

interface Fake {
  tag?: string;
  scenario?: string;
  status?: number;
  times?: number;
  retry_after?: string;
  delay_ms?: number;
  first_byte_ms?: number;
  interval_ms?: number;
  after?: number;
  text?: string;
  prompt_tokens?: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
  usage_format?: "openai" | "deepseek";
  fail_models?: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function lastText(messages: any[]): string {
  const last = messages[messages.length - 1];
  const c = last?.content;
  return typeof c === "string" ? c : Array.isArray(c) ? c.map((p: any) => p.text ?? "").join(" ") : "";
}

/** Words with their leading space: one chunk and one completion token each. */
const pieces = (text: string) => text.match(/\s*\S+/g) ?? [];

function plan(body: any, fake: Fake) {
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  const tools: any[] = Array.isArray(body.tools) ? body.tools : [];
  const last = messages[messages.length - 1];
  const wantsTool = tools.length > 0 && body.tool_choice !== "none" && last?.role === "user";
  const named = typeof body.tool_choice === "object" ? body.tool_choice.function?.name : undefined;
  const tool = wantsTool ? (tools.find((t) => t.function?.name === named) ?? tools[0]) : undefined;
  const text =
    fake.text ??
    (last?.role === "tool" ? `The tool said: ${lastText(messages)}` : `Hello from the fake upstream about ${lastText(messages)}`);
  const parts = tool ? ['{"city":', ' "Paris"}'] : pieces(text);
  const reasoning = fake.reasoning_tokens ?? 0;
  const prompt = fake.prompt_tokens ?? 40;
  const cached = fake.cached_tokens ?? 0;
  const totals = {
    prompt_tokens: prompt,
    completion_tokens: parts.length + reasoning,
    total_tokens: prompt + parts.length + reasoning,
  };
  const usage =
    fake.usage_format === "deepseek"
      ? {
          ...totals,
          prompt_cache_hit_tokens: cached,
          prompt_cache_miss_tokens: prompt - cached,
          completion_tokens_details: { reasoning_tokens: reasoning },
        }
      : {
          ...totals,
          prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: 0 },
        };
  return { tool, text, parts, usage };
}

async function answer(res: ServerResponse, body: any, fake: Fake, isClosed: () => boolean) {
  const scenario = fake.scenario ?? "ok";
  const { tool, text, parts, usage } = plan(body, fake);
  const id = `chatcmpl-fake${Math.random().toString(36).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  const finish = scenario === "content_filter" ? "content_filter" : tool ? "tool_calls" : "stop";
  await sleep(fake.first_byte_ms ?? 0);
  if (!body.stream) {
    const message = tool
      ? {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_fake_1", type: "function", function: { name: tool.function.name, arguments: parts.join("") } },
          ],
        }
      : { role: "assistant", content: scenario === "content_filter" ? "" : text, refusal: null };
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created,
        model: body.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage,
        system_fingerprint: "fp_fake",
      }),
    );
    return;
  }
  const includeUsage = body.stream_options?.include_usage === true;
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: body.model,
    system_fingerprint: "fp_fake",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  const send = (data: unknown) => res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  send(
    chunk(
      tool
        ? {
            role: "assistant",
            content: null,
            tool_calls: [
              { index: 0, id: "call_fake_1", type: "function", function: { name: tool.function.name, arguments: "" } },
            ],
          }
        : { role: "assistant", content: "", refusal: null },
    ),
  );
  const limit = scenario === "content_filter" ? 2 : parts.length;
  for (const [i, piece] of parts.slice(0, limit).entries()) {
    if (isClosed()) return;
    if (scenario === "drop" && i >= (fake.after ?? 2)) {
      await sleep(50); // let the chunks already written leave before the connection breaks
      res.socket?.destroy();
      return;
    }
    if (scenario === "stream_error" && i >= (fake.after ?? 2)) {
      send({ error: { message: "The server had an error while processing your request.", type: "server_error", code: null } });
      res.end();
      return;
    }
    if (i > 0) await sleep(fake.interval_ms ?? 0);
    send(chunk(tool ? { tool_calls: [{ index: 0, function: { arguments: piece } }] } : { content: piece }));
  }
  if (isClosed()) return;
  send(chunk({}, finish));
  if (includeUsage)
    send({ id, object: "chat.completion.chunk", created, model: body.model, system_fingerprint: "fp_fake", choices: [], usage });
  send("[DONE]");
  res.end();
}

export interface FakeUpstream {
  url: string;
  records: Map<string, FakeRecord[]>;
  close(): Promise<void>;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const records = new Map<string, FakeRecord[]>();
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/_fake/requests") {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(records.get(url.searchParams.get("tag") ?? "") ?? []));
      return;
    }
    if (req.method !== "POST" || url.pathname !== "/v1/chat/completions") {
      res
        .writeHead(404, { "Content-Type": "application/json" })
        .end(JSON.stringify({ error: { message: "Not found", type: "invalid_request_error" } }));
      return;
    }
    const raw = await readBody(req);
    let body: any = {};
    try {
      body = JSON.parse(raw);
    } catch {}
    const fake: Fake = body.fake ?? {};
    const tag = fake.tag ?? "untagged";
    const list = records.get(tag) ?? [];
    const record: FakeRecord = {
      tag,
      attempt: list.length + 1,
      authorization: req.headers.authorization ?? null,
      body,
      aborted: false,
      completed: false,
    };
    list.push(record);
    records.set(tag, list);
    let closed = false;
    res.on("close", () => {
      closed = true;
      if (!res.writableFinished) record.aborted = true;
    });
    res.on("finish", () => {
      record.completed = true;
    });
    const json = (status: number, error: object, headers: Record<string, string> = {}) =>
      res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(JSON.stringify({ error }));
    if (req.headers.authorization !== `Bearer ${FAKE_UPSTREAM_KEY}`) {
      json(401, { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" });
      return;
    }
    if (fake.fail_models?.includes(body.model)) {
      const status = fake.status ?? 500;
      json(status, { message: `The model ${body.model} failed.`, type: "server_error", code: null });
      return;
    }
    switch (fake.scenario) {
      case "status":
        if (record.attempt <= (fake.times ?? Number.POSITIVE_INFINITY)) {
          const status = fake.status ?? 500;
          json(
            status,
            {
              message:
                status === 429 ? "Rate limit reached for requests." : "The server had an error while processing your request.",
              type: status === 429 ? "requests" : "server_error",
              code: status === 429 ? "rate_limit_exceeded" : null,
            },
            fake.retry_after !== undefined ? { "Retry-After": fake.retry_after } : {},
          );
          return;
        }
        break;
      case "context_length":
        json(400, {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        });
        return;
      case "prompt_refused":
        json(400, {
          message:
            "Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed.",
          type: "invalid_request_error",
          param: null,
          code: "content_policy_violation",
        });
        return;
      case "hang": {
        const until = Date.now() + (fake.delay_ms ?? 30_000);
        while (!closed && Date.now() < until) await sleep(20);
        if (closed) return;
        break;
      }
    }
    await answer(res, body, fake, () => closed);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    records,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let running: FakeUpstream | undefined;

export async function setup(project: TestProject) {
  running = await startFakeUpstream();
  project.provide("fakeOpenAiUrl", running.url);
}

export async function teardown() {
  await running?.close();
}
