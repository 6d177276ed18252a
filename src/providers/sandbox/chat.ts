/**
 * The built-in chat model for local use. Deterministic: the answer is derived from the messages.
 * It counts tokens, streams one token per chunk at a realistic pace (SANDBOX_LATENCY_SCALE
 * multiplies it; "0" answers at once), calls a tool when tools are offered and the last user
 * message asks for one, and honours `n`, `stop`, the token limit and JSON output.
 */

import { estimatePromptTokens, usageOf } from "../../chat/pricing";
import type { ChatCompletionRequest, ChatMessage, Tool } from "../../chat/schema";
import type { Env } from "../../env";
import { randomToken } from "../../lib/ids";
import type { ChatObject, ChatUpstream, ChatUpstreamRequest } from "../chat-upstream";

/** Time to the first token and between tokens, in milliseconds, before the latency scale. */
const FIRST_TOKEN_MS = 350;
const PER_TOKEN_MS = 25;

/** Words, digit groups and single other characters, each with its leading whitespace. */
export function sandboxTokens(text: string): string[] {
  return text.match(/\s*[A-Za-z]+|\s*\d{1,3}|\s*[^\sA-Za-z\d]|\s+$/g) ?? [];
}

function textOf(content: ChatMessage["content"]): { text: string; images: number } {
  if (content === null || content === undefined) return { text: "", images: 0 };
  if (typeof content === "string") return { text: content, images: 0 };
  let text = "";
  let images = 0;
  for (const p of content) {
    if (p.type === "text") text += (text ? " " : "") + p.text;
    else if (p.type === "image_url") images++;
  }
  return { text, images };
}

/** A value that satisfies a (simple) JSON schema, using words of the user's message for strings. */
function valueFor(schema: any, hint: string): unknown {
  if (!schema || typeof schema !== "object") return hint;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      const props = (schema.properties ?? {}) as Record<string, unknown>;
      const required = new Set<string>(Array.isArray(schema.required) ? schema.required : Object.keys(props));
      for (const [k, s] of Object.entries(props)) if (required.has(k)) out[k] = valueFor(s, hint);
      return out;
    }
    case "array":
      return [];
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return hint;
  }
}

/** A quoted phrase of the message, else its last word: what a tool argument is most likely about. */
function hintOf(text: string): string {
  const quoted = /["“']([^"”']{1,80})["”']/.exec(text);
  if (quoted) return quoted[1] as string;
  const words = text.match(/[\p{L}\p{N}]+/gu);
  return words?.[words.length - 1] ?? "sandbox";
}

function chooseTool(body: ChatCompletionRequest, lastUser: string): Tool | undefined {
  const tools = body.tools ?? [];
  if (!tools.length || body.tool_choice === "none") return undefined;
  if (typeof body.tool_choice === "object") {
    const name = body.tool_choice.function.name;
    return tools.find((t) => t.function.name === name);
  }
  const lower = lastUser.toLowerCase();
  const named = tools.find((t) => lower.includes(t.function.name.toLowerCase()));
  if (named) return named;
  if (body.tool_choice === "required" || /\b(tool|call|function)\b/.test(lower)) return tools[0];
  return undefined;
}

interface Answer {
  content: string | null;
  toolCall?: { id: string; name: string; arguments: string };
  tokens: string[];
  finish: "stop" | "length" | "tool_calls";
}

function answer(body: ChatCompletionRequest, model: string, choice: number, limit: number): Answer {
  const messages = body.messages;
  const last = messages[messages.length - 1] as ChatMessage;
  const users = messages.filter((m) => m.role === "user");
  const lastUser = textOf(users[users.length - 1]?.content ?? "");
  const tool = last.role === "user" ? chooseTool(body, lastUser.text) : undefined;
  if (tool) {
    const args = JSON.stringify(valueFor(tool.function.parameters ?? { type: "object" }, hintOf(lastUser.text)));
    const id = `call_${choice}_${tool.function.name}`.slice(0, 40);
    return {
      content: null,
      toolCall: { id, name: tool.function.name, arguments: args },
      tokens: sandboxTokens(args),
      finish: "tool_calls",
    };
  }
  let text: string;
  if (last.role === "tool") {
    const call = messages
      .flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []))
      .find((c) => c.id === last.tool_call_id);
    text = `The ${call?.function.name ?? "tool"} tool returned: ${textOf(last.content).text}`;
  } else {
    const said = lastUser.text.length > 120 ? `${lastUser.text.slice(0, 117)}...` : lastUser.text;
    const images = lastUser.images ? ` with ${lastUser.images} image${lastUser.images > 1 ? "s" : ""}` : "";
    text = `Sandbox ${model} read ${messages.length} message${messages.length > 1 ? "s" : ""}${images}. You said: "${said}". This answer is generated locally and is the same every time.`;
  }
  if (body.n && body.n > 1) text += ` (choice ${choice + 1} of ${body.n})`;
  const format = body.response_format?.type;
  if (format === "json_object") text = JSON.stringify({ answer: text, model, messages: messages.length });
  if (format === "json_schema") text = JSON.stringify(valueFor(body.response_format?.json_schema.schema, text));
  let finish: Answer["finish"] = "stop";
  const stops = typeof body.stop === "string" ? [body.stop] : (body.stop ?? []);
  const cut = Math.min(...stops.filter((s) => s.length > 0).map((s) => (text.indexOf(s) >= 0 ? text.indexOf(s) : Infinity)));
  if (Number.isFinite(cut)) text = text.slice(0, cut);
  let tokens = sandboxTokens(text);
  if (tokens.length > limit) {
    tokens = tokens.slice(0, limit);
    text = tokens.join("");
    finish = "length";
  }
  return { content: text, tokens, finish };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

export function sandboxChat(env: Env): ChatUpstream {
  const raw = Number(env.SANDBOX_LATENCY_SCALE ?? "1");
  const scale = Number.isFinite(raw) && raw >= 0 ? raw : 1;
  return {
    name: "sandbox",
    async complete(req: ChatUpstreamRequest, signal: AbortSignal) {
      const body = req.body as unknown as ChatCompletionRequest;
      const model = String(req.body.model);
      const limit = body.max_completion_tokens ?? body.max_tokens ?? req.maxCompletionTokens;
      const answers = Array.from({ length: body.n ?? 1 }, (_, i) => answer(body, model, i, limit));
      const usage = usageOf(
        estimatePromptTokens(body),
        answers.reduce((n, a) => n + a.tokens.length + (a.toolCall ? sandboxTokens(a.toolCall.name).length : 0), 0),
      );
      const base = {
        id: `chatcmpl-${randomToken(12)}`,
        created: Math.floor(Date.now() / 1000),
        model,
        system_fingerprint: "sandbox",
      };
      if (!req.stream) {
        const tokens = answers.reduce((n, a) => n + a.tokens.length, 0);
        await sleep((FIRST_TOKEN_MS + PER_TOKEN_MS * tokens) * scale, signal);
        const choices = answers.map((a, index) => ({
          index,
          message: {
            role: "assistant",
            content: a.content,
            refusal: null,
            ...(a.toolCall
              ? {
                  tool_calls: [
                    { id: a.toolCall.id, type: "function", function: { name: a.toolCall.name, arguments: a.toolCall.arguments } },
                  ],
                }
              : {}),
          },
          logprobs: null,
          finish_reason: a.finish,
        }));
        return { stream: false, completion: { ...base, object: "chat.completion", choices, usage } };
      }
      await sleep(FIRST_TOKEN_MS * scale, signal);
      return { stream: true, chunks: streamAnswers(answers, base, usage, scale, signal) };
    },
  };
}

async function* streamAnswers(
  answers: Answer[],
  base: Record<string, unknown>,
  usage: ReturnType<typeof usageOf>,
  scale: number,
  signal: AbortSignal,
): AsyncGenerator<ChatObject> {
  const chunk = (index: number, delta: Record<string, unknown>, finish: string | null = null): ChatObject => ({
    ...base,
    object: "chat.completion.chunk",
    choices: [{ index, delta, logprobs: null, finish_reason: finish }],
  });
  for (const [index, a] of answers.entries()) {
    if (a.toolCall) {
      const { id, name } = a.toolCall;
      yield chunk(index, {
        role: "assistant",
        content: null,
        tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }],
      });
      for (const piece of a.tokens) {
        await sleep(PER_TOKEN_MS * scale, signal);
        yield chunk(index, { tool_calls: [{ index: 0, function: { arguments: piece } }] });
      }
    } else {
      yield chunk(index, { role: "assistant", content: "", refusal: null });
      for (const [i, piece] of a.tokens.entries()) {
        if (i > 0) await sleep(PER_TOKEN_MS * scale, signal);
        yield chunk(index, { content: piece });
      }
    }
    yield chunk(index, {}, a.finish);
  }
  yield { ...base, object: "chat.completion.chunk", choices: [], usage };
}
