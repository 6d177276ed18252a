/**
 * Anthropic's stream events as OpenAI `chat.completion.chunk` objects, and the whole
 * `chat.completion` they add up to. The event flow, from Anthropic's "Streaming Messages" page:
 * message_start (a Message with empty content and the input usage), then per content block
 * content_block_start / content_block_delta… / content_block_stop (each with the block's `index`),
 * then message_delta (stop_reason, stop_details, cumulative usage) and message_stop; `ping` events
 * may come at any time, an `error` event ends the stream, and unknown event types are to be ignored.
 *
 *   message_start                   → a chunk with `role: "assistant"` (the first byte)
 *   text block / text_delta         → `content` deltas
 *   tool_use block                  → a tool call delta with index, id (carrying the thinking before it), type, name;
 *   input_json_delta                  then `function.arguments` deltas (`{}` when the tool takes no input)
 *   thinking / redacted_thinking    → kept for the tool call id, never shown as content
 *   message_delta + message_stop    → a final chunk with finish_reason and usage
 *   stop_reason                     → end_turn, stop_sequence, pause_turn → stop; max_tokens,
 *                                     model_context_window_exceeded → length; tool_use → tool_calls;
 *                                     refusal → content_filter
 *   usage                           → prompt_tokens = input + cache_read + cache_creation (Anthropic's
 *                                     input_tokens excludes both), cached_tokens = cache_read,
 *                                     cache_creation_tokens = cache_creation, reasoning_tokens = thinking_tokens
 */
import { ApiError } from "../../errors/api-error";
import type { ChatObject } from "../chat-upstream";
import { streamFailure } from "./client";
import { type ThinkingBlock, toolCallId } from "./thinking";

export const FINISH_REASONS: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

export function finishReason(stopReason: unknown): string {
  return (typeof stopReason === "string" ? FINISH_REASONS[stopReason] : undefined) ?? "stop";
}

export interface AnthropicUsage {
  input: number;
  cacheRead: number;
  cacheCreation: number;
  output: number;
  thinking: number;
}

const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** Takes every count a usage object carries; message_delta's counts are cumulative, and absent or null ones keep the earlier value. */
export function absorbUsage(into: AnthropicUsage, raw: unknown): void {
  const u = (raw ?? {}) as Record<string, any>;
  if (typeof u.input_tokens === "number") into.input = count(u.input_tokens);
  if (typeof u.cache_read_input_tokens === "number") into.cacheRead = count(u.cache_read_input_tokens);
  if (typeof u.cache_creation_input_tokens === "number") into.cacheCreation = count(u.cache_creation_input_tokens);
  if (typeof u.output_tokens === "number") into.output = count(u.output_tokens);
  if (typeof u.output_tokens_details?.thinking_tokens === "number")
    into.thinking = count(u.output_tokens_details.thinking_tokens);
}

/** The usage object in the chat wire format, with cache creation carried for the service to price. */
export function openAiUsage(u: AnthropicUsage): ChatObject {
  const prompt = u.input + u.cacheRead + u.cacheCreation;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead, cache_creation_tokens: u.cacheCreation },
    completion_tokens_details: { reasoning_tokens: Math.min(u.thinking, u.output) },
  };
}

type OpenBlock =
  | { kind: "text" }
  | { kind: "tool"; index: number; sentArguments: boolean }
  | { kind: "thinking"; block: ThinkingBlock }
  | { kind: "other" };

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Reads one stream's events in order; `push` returns the chunks each event produces. */
export class ChunkTranslator {
  readonly usage: AnthropicUsage = { input: 0, cacheRead: 0, cacheCreation: 0, output: 0, thinking: 0 };
  private id = "";
  private started = false;
  private finished = false;
  private stopReason: string | null = null;
  private stopDetails: unknown = null;
  private readonly blocks = new Map<number, OpenBlock>();
  /** Thinking blocks since the last tool_use: they ride in the next tool call's id. */
  private thinking: ThinkingBlock[] = [];
  private text = "";
  private readonly calls: ToolCall[] = [];

  constructor(
    private readonly model: string,
    private readonly secret: string,
    private readonly created = Math.floor(Date.now() / 1000),
  ) {}

  /** message_stop has arrived: the answer is whole. */
  get done(): boolean {
    return this.finished;
  }

  push(event: Record<string, any>): ChatObject[] {
    switch (event?.type) {
      case "message_start":
        return this.start(event.message);
      case "content_block_start":
        return this.blockStart(event.index, event.content_block);
      case "content_block_delta":
        return this.blockDelta(event.index, event.delta);
      case "content_block_stop":
        return this.blockStop(event.index);
      case "message_delta":
        this.need("message_delta");
        if (typeof event.delta?.stop_reason === "string") this.stopReason = event.delta.stop_reason;
        if (event.delta?.stop_details) this.stopDetails = event.delta.stop_details;
        absorbUsage(this.usage, event.usage);
        return [];
      case "message_stop":
        this.need("message_stop");
        this.finished = true;
        return [this.chunk({}, finishReason(this.stopReason), { usage: openAiUsage(this.usage) })];
      case "error":
        throw streamFailure(event, this.secret);
      default:
        // ping, and event types added later: Anthropic's versioning policy says to ignore them.
        return [];
    }
  }

  /** The whole completion, once the stream is done. */
  completion(): ChatObject {
    const calls = this.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
    return {
      id: this.id,
      object: "chat.completion",
      created: this.created,
      model: this.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: this.text.length > 0 || calls.length === 0 ? this.text : null,
            refusal: null,
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
          logprobs: null,
          finish_reason: finishReason(this.stopReason),
        },
      ],
      usage: openAiUsage(this.usage),
    };
  }

  /** The refusal's category and explanation, when Anthropic gave them. */
  get refusal(): { category?: string; explanation?: string } | null {
    if (this.stopReason !== "refusal") return null;
    const d = (this.stopDetails ?? {}) as Record<string, unknown>;
    return {
      ...(typeof d.category === "string" ? { category: d.category } : {}),
      ...(typeof d.explanation === "string" ? { explanation: d.explanation } : {}),
    };
  }

  private need(what: string) {
    if (!this.started) throw malformed(`${what} before message_start`);
  }

  private start(message: Record<string, any> | undefined): ChatObject[] {
    if (!message || typeof message !== "object") throw malformed("message_start without a message");
    if (this.started) throw malformed("a second message_start");
    this.started = true;
    this.id = typeof message.id === "string" ? message.id : "";
    absorbUsage(this.usage, message.usage);
    return [this.chunk({ role: "assistant", content: "" }, null)];
  }

  private blockStart(index: unknown, block: Record<string, any> | undefined): ChatObject[] {
    this.need("content_block_start");
    if (typeof index !== "number" || !block || typeof block !== "object")
      throw malformed("content_block_start without index or block");
    switch (block.type) {
      case "text":
        this.blocks.set(index, { kind: "text" });
        return this.textDelta(block.text);
      case "tool_use": {
        if (typeof block.id !== "string" || typeof block.name !== "string") throw malformed("tool_use without id or name");
        const call = { id: toolCallId(block.id, this.thinking, this.model), name: block.name, arguments: "" };
        this.thinking = [];
        const at = this.calls.push(call) - 1;
        this.blocks.set(index, { kind: "tool", index: at, sentArguments: false });
        const out = [this.toolDelta(at, { id: call.id, type: "function", function: { name: call.name, arguments: "" } })];
        // A whole input at the start (a replayed message) is sent at once; streamed ones start as {}.
        const input = block.input;
        if (input && typeof input === "object" && Object.keys(input).length > 0)
          out.push(...this.argumentsDelta(index, JSON.stringify(input)));
        return out;
      }
      case "thinking":
        this.blocks.set(index, {
          kind: "thinking",
          block: {
            type: "thinking",
            thinking: typeof block.thinking === "string" ? block.thinking : "",
            signature: typeof block.signature === "string" ? block.signature : "",
          },
        });
        return [];
      case "redacted_thinking":
        this.blocks.set(index, { kind: "thinking", block: { type: "redacted_thinking", data: String(block.data ?? "") } });
        return [];
      default:
        // Server tool blocks and others this service never asks for.
        this.blocks.set(index, { kind: "other" });
        return [];
    }
  }

  private blockDelta(index: unknown, delta: Record<string, any> | undefined): ChatObject[] {
    this.need("content_block_delta");
    const open = typeof index === "number" ? this.blocks.get(index) : undefined;
    if (!open || !delta || typeof delta !== "object") throw malformed("content_block_delta for a block that was not started");
    if (delta.type === "text_delta" && open.kind === "text") return this.textDelta(delta.text);
    if (delta.type === "input_json_delta" && open.kind === "tool")
      return this.argumentsDelta(index as number, delta.partial_json);
    if (open.kind === "thinking" && open.block.type === "thinking") {
      if (delta.type === "thinking_delta" && typeof delta.thinking === "string") open.block.thinking += delta.thinking;
      if (delta.type === "signature_delta" && typeof delta.signature === "string") open.block.signature = delta.signature;
    }
    // citations_delta and anything newer add nothing the chat format can carry.
    return [];
  }

  private blockStop(index: unknown): ChatObject[] {
    this.need("content_block_stop");
    const open = typeof index === "number" ? this.blocks.get(index) : undefined;
    if (open?.kind === "thinking") this.thinking.push(open.block);
    // A tool without parameters streams no input at all; its arguments are still a JSON object.
    if (open?.kind === "tool" && !open.sentArguments) return this.argumentsDelta(index as number, "{}");
    return [];
  }

  private textDelta(text: unknown): ChatObject[] {
    if (typeof text !== "string" || text.length === 0) return [];
    this.text += text;
    return [this.chunk({ content: text }, null)];
  }

  private argumentsDelta(blockIndex: number, partial: unknown): ChatObject[] {
    const open = this.blocks.get(blockIndex);
    if (open?.kind !== "tool" || typeof partial !== "string" || partial.length === 0) return [];
    open.sentArguments = true;
    (this.calls[open.index] as ToolCall).arguments += partial;
    return [this.toolDelta(open.index, { function: { arguments: partial } })];
  }

  private toolDelta(index: number, call: Record<string, unknown>): ChatObject {
    return this.chunk({ tool_calls: [{ index, ...call }] }, null);
  }

  private chunk(delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}): ChatObject {
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...extra,
    };
  }
}

/** A whole Message (a non-streamed answer) as the events a stream of it would have carried. */
export function eventsOfMessage(message: Record<string, any>): Record<string, any>[] {
  const content: Record<string, any>[] = Array.isArray(message.content) ? message.content : [];
  const events: Record<string, any>[] = [{ type: "message_start", message: { ...message, content: [], stop_reason: null } }];
  content.forEach((block, index) => {
    events.push({ type: "content_block_start", index, content_block: block });
    events.push({ type: "content_block_stop", index });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason: message.stop_reason ?? null, stop_details: message.stop_details ?? null },
    usage: message.usage ?? {},
  });
  events.push({ type: "message_stop" });
  return events;
}

/** An answer that breaks Anthropic's documented shape: reported, never retried (it would likely come again). */
export class MalformedStream extends ApiError {}

export function malformed(what: string): ApiError {
  return new MalformedStream("model_request_failed", `The model sent a malformed answer: ${what}.`);
}
