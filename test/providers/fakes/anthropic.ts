/**
 * A fake of Anthropic's Messages API, written from Anthropic's documentation ("Messages",
 * "Streaming Messages", "Errors", "Vision", "Prompt caching", "Handling stop reasons",
 * "Streaming refusals", "Thinking in tool and multi-turn workflows", "What's new in Claude Sonnet 5.5")
 * and the official TypeScript SDK's types (src/resources/messages/messages.ts, src/core/error.ts):
 *
 *   POST /v1/messages   `x-api-key` and `anthropic-version` required; JSON body; answers a Message,
 *                       or with `stream: true` server-sent events, each `event: <type>` with the
 *                       same `type` in its JSON data: message_start, ping, content_block_start /
 *                       content_block_delta (text_delta, input_json_delta, signature_delta) /
 *                       content_block_stop, message_delta (stop_reason, stop_details, cumulative usage),
 *                       message_stop — or an `error` event.
 *   Errors              `{type: "error", error: {type, message}, request_id}`: 400 invalid_request_error,
 *                       401 authentication_error, 404 not_found_error, 429 rate_limit_error (retry-after),
 *                       500 api_error, 529 overloaded_error. Every answer carries `request-id`.
 *
 * What it holds callers to, as the documentation states it: only `user` and `assistant` roles (system
 * is top level); no unknown top-level fields; non-empty text blocks; images as base64 (JPEG, PNG, GIF,
 * WebP, at most 5 MB, bytes matching the media type) or URL sources; tool_use ids `^[a-zA-Z0-9_-]+$`;
 * every tool_use answered by a tool_result in the next user turn, results first; at most 4
 * cache_control breakpoints; thinking blocks passed back unmodified (known signatures, same model),
 * and required before the tool_use of the current tool-use turn. For the Claude 5 models it also
 * holds the 5-generation rules: temperature only 1.0, top_p ≥ 0.99, no top_k, no assistant prefill,
 * no `thinking: {type: "disabled"}`, and (Sonnet 5.5) no forced tool use.
 *
 * The model thinks adaptively with `display: "omitted"` (Sonnet 5.5's default): each answer starts
 * with a thinking block whose text is empty and whose signature is real to this fake. Usage follows
 * the docs: input_tokens excludes cache reads and writes; output_tokens includes thinking
 * (output_tokens_details.thinking_tokens); prompt caching writes at cache_control breakpoints of at
 * least 1024 tokens and reads them back for 5 minutes.
 *
 * Requests are recorded by the `#tag:` in the last user message (else anywhere in the conversation).
 * SCENARIOS (kit.ts) from the last user message: submit_429, submit_5xx, down (529 overloaded_error:
 * Anthropic documents no 503; overload is its "temporarily unavailable"), safety_input (stop_reason
 * "refusal" before any output), safety_output (some text, then "refusal"), malformed (a Message without
 * content; in a stream, an event that is not JSON); the job-life scenarios do not apply to a
 * synchronous API. Fake-specific markers: `#anthropic:rate_limited` (429 with retry-after: 30, every
 * time) and `#anthropic:stream_error` (an overloaded_error event after the first text).
 */
import { createHash, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { FakeServer, fakeKey, json, readBody, type Scenario, scenariosOf, tagOf } from "./kit";

export const provider = "anthropic";

const VERSION_HEADER = "anthropic-version";
const MEDIA_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const MAX_OUTPUT_TOKENS = 128_000;
const MIN_CACHEABLE_TOKENS = 1024;
const CACHE_TTL_MS = 5 * 60 * 1000;
const TOP_LEVEL = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "stop_sequences",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "tools",
  "tool_choice",
  "metadata",
  "thinking",
  "output_config",
  "cache_control",
  "service_tier",
  "container",
  "inference_geo",
]);

class Invalid extends Error {}
const fail = (message: string): never => {
  throw new Invalid(message);
};

let counter = 0;
const requestId = () => `req_${Date.now().toString(36)}${(++counter).toString(36).padStart(6, "0")}`;
const messageId = () => `msg_${randomBytes(12).toString("hex")}`;
const toolUseId = () => `toolu_${randomBytes(12).toString("hex")}`;

function errorBody(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}) {
  const id = requestId();
  json(res, status, { type: "error", error: { type, message }, request_id: id }, { "request-id": id, ...headers });
}

// ---------------------------------------------------------------- reading a request

type Block = Record<string, any>;

function blocksOf(content: unknown): Block[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
}

function textOfBlocks(blocks: Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    if (b?.type === "text" && typeof b.text === "string") out.push(b.text);
    if (b?.type === "tool_result") out.push(textOfBlocks(blocksOf(b.content)));
  }
  return out.join("\n");
}

const tokensOf = (text: string) => Math.ceil(text.length / 4);

function imageSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length >= 24 && bytes[0] === 0x89 && bytes[1] === 0x50)
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  return null;
}

function matchesType(bytes: Buffer, type: string): boolean {
  if (type === "image/png") return bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  if (type === "image/jpeg") return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  if (type === "image/gif") return bytes.subarray(0, 4).toString("latin1") === "GIF8";
  return bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString("latin1") === "WEBP";
}

/** The documented estimate: width × height / 750 tokens, images above ~1600 tokens being scaled down first. */
function imageTokens(block: Block): number {
  if (block.source?.type !== "base64") return 1600;
  const size = imageSize(Buffer.from(String(block.source.data), "base64"));
  return size ? Math.min(1600, Math.ceil((size.width * size.height) / 750)) : 1600;
}

function blockTokens(block: Block): number {
  if (block.type === "image") return imageTokens(block);
  if (block.type === "text") return tokensOf(String(block.text));
  if (block.type === "tool_result") return 4 + blocksOf(block.content).reduce((n, b) => n + blockTokens(b), 0);
  if (block.type === "tool_use") return 8 + tokensOf(JSON.stringify(block.input ?? {}));
  return tokensOf(JSON.stringify(block));
}

function checkCache(value: unknown, where: string): number {
  if (value === undefined) return 0;
  const c = value as Record<string, unknown>;
  if (c?.type !== "ephemeral") fail(`${where}.cache_control.type: Input should be 'ephemeral'`);
  if (c.ttl !== undefined && c.ttl !== "5m" && c.ttl !== "1h") fail(`${where}.cache_control.ttl: Input should be '5m' or '1h'`);
  return 1;
}

function checkImage(block: Block, where: string) {
  const source = block.source ?? {};
  if (source.type === "url") {
    if (typeof source.url !== "string" || !/^https?:\/\//.test(source.url)) fail(`${where}.source.url: must be an http(s) URL`);
    return;
  }
  if (source.type !== "base64") fail(`${where}.source.type: Input should be 'base64', 'url' or 'file'`);
  if (!MEDIA_TYPES.has(source.media_type)) {
    fail(`${where}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
  }
  if (typeof source.data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(source.data))
    fail(`${where}.source.data: invalid base64 data`);
  const bytes = Buffer.from(source.data, "base64");
  if (bytes.length > MAX_IMAGE_BYTES)
    fail(`${where}.source.base64: image exceeds 5 MB maximum: ${bytes.length} bytes > ${MAX_IMAGE_BYTES} bytes`);
  if (!matchesType(bytes, source.media_type))
    fail(`${where}.source.base64.data: Image does not match the provided media type ${source.media_type}`);
}

interface Issued {
  model: string;
  /** The thinking text signed (empty with display "omitted"): a changed text fails the signature. */
  thinking: string;
  /** The tool_use ids of the turn this thinking came with. */
  toolUses: string[];
}

/** Everything the fake remembers between requests: thinking it signed, and cached prefixes. */
class Memory {
  readonly signatures = new Map<string, Issued>();
  readonly cache = new Map<string, number>();

  sign(model: string, thinking: string): string {
    const signature = randomBytes(48).toString("base64");
    this.signatures.set(signature, { model, thinking, toolUses: [] });
    return signature;
  }
}

/** Is this model of the Claude 5 generation (the rules that changed after Claude Opus 4.6)? */
const fifthGeneration = (model: string) => /^claude-[a-z]+-5(?:-|$)/.test(model);

function validate(body: Record<string, any>, memory: Memory): void {
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) fail(`${key}: Extra inputs are not permitted`);
  const model = body.model;
  if (typeof model !== "string" || model.length === 0) fail("model: Field required");
  if (body.max_tokens === undefined) fail("max_tokens: Field required");
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 0)
    fail("max_tokens: Input should be a valid integer greater than or equal to 0");
  if (body.max_tokens > MAX_OUTPUT_TOKENS) {
    fail(
      `max_tokens: ${body.max_tokens} > ${MAX_OUTPUT_TOKENS}, which is the maximum allowed number of output tokens for ${model}`,
    );
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) fail("messages: at least one message is required");
  let breakpoints = checkCache(body.cache_control, "cache_control");

  if (body.system !== undefined) {
    if (Array.isArray(body.system)) {
      body.system.forEach((b: Block, i: number) => {
        if (b?.type !== "text" || typeof b.text !== "string" || b.text.length === 0)
          fail(`system.${i}: text content blocks must be non-empty`);
        breakpoints += checkCache(b.cache_control, `system.${i}`);
      });
    } else if (typeof body.system !== "string") fail("system: Input should be a valid string or list of text blocks");
  }

  const toolNames = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) fail("tools: Input should be a valid list");
    body.tools.forEach((t: Block, i: number) => {
      if (typeof t?.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(t.name))
        fail(`tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
      if (!t.input_schema || typeof t.input_schema !== "object" || t.input_schema.type !== "object") {
        fail(`tools.${i}.input_schema.type: Input should be 'object'`);
      }
      breakpoints += checkCache(t.cache_control, `tools.${i}`);
      toolNames.add(t.name);
    });
  }
  if (body.tool_choice !== undefined) {
    const c = body.tool_choice;
    if (!["auto", "any", "tool", "none"].includes(c?.type))
      fail("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
    if (c.type === "tool" && !toolNames.has(c.name)) fail(`tool_choice.name: Tool '${String(c.name)}' not found in tools`);
    if ((c.type === "any" || c.type === "tool") && model === "claude-sonnet-5-5") {
      fail("tool_choice: forcing tool use is not supported on this model; use tool_choice auto or none");
    }
  }
  if (
    body.stop_sequences !== undefined &&
    (!Array.isArray(body.stop_sequences) || body.stop_sequences.some((s: unknown) => typeof s !== "string"))
  ) {
    fail("stop_sequences: Input should be a valid list of strings");
  }
  if (body.temperature !== undefined) {
    if (typeof body.temperature !== "number" || body.temperature < 0 || body.temperature > 1)
      fail("temperature: Input should be between 0 and 1");
    if (fifthGeneration(model) && body.temperature !== 1)
      fail(`temperature: ${model} only accepts the default temperature of 1.0`);
  }
  if (body.top_p !== undefined && fifthGeneration(model) && !(body.top_p >= 0.99))
    fail(`top_p: ${model} only accepts top_p of 0.99 or more`);
  if (body.top_k !== undefined && fifthGeneration(model)) fail(`top_k: ${model} does not accept top_k`);
  if (body.thinking?.type === "disabled" && model === "claude-sonnet-5-5") {
    fail('thinking.type: "disabled" is not supported on this model; use {"type": "between_tools"} for the least thinking');
  }
  const format = body.output_config?.format;
  if (format !== undefined && (format?.type !== "json_schema" || !format.schema || typeof format.schema !== "object")) {
    fail("output_config.format: Input should be {type: 'json_schema', schema: {...}}");
  }
  const effort = body.output_config?.effort;
  if (effort !== undefined && !["low", "medium", "high", "xhigh", "max"].includes(effort)) {
    fail("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'");
  }

  const messages: Block[] = body.messages;
  if (fifthGeneration(model) && messages.at(-1)?.role === "assistant") {
    fail(`messages: ${model} does not support assistant message prefill; the conversation must end with a user message`);
  }
  let usedTools = false;
  messages.forEach((m, i) => {
    const where = `messages.${i}`;
    if (m?.role !== "user" && m?.role !== "assistant") fail(`${where}.role: Input should be 'user' or 'assistant'`);
    if (typeof m.content === "string") {
      if (m.content.length === 0) fail(`${where}: text content must be non-empty`);
      return;
    }
    if (!Array.isArray(m.content) || m.content.length === 0)
      fail(`${where}.content: Input should be a non-empty list of content blocks`);
    let seenOther = false;
    (m.content as Block[]).forEach((b, j) => {
      const at = `${where}.content.${j}`;
      breakpoints += checkCache(b?.cache_control, at);
      switch (b?.type) {
        case "text":
          if (typeof b.text !== "string" || b.text.length === 0) fail(`${at}: text content blocks must be non-empty`);
          seenOther = true;
          break;
        case "image":
          if (m.role !== "user") fail(`${at}: image blocks are only allowed in user messages`);
          checkImage(b, `${at}.image`);
          seenOther = true;
          break;
        case "tool_use":
          if (m.role !== "assistant") fail(`${at}: tool_use blocks are only allowed in assistant messages`);
          if (typeof b.id !== "string" || !/^[a-zA-Z0-9_-]+$/.test(b.id))
            fail(`${at}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
          if (typeof b.name !== "string") fail(`${at}.name: Field required`);
          if (!b.input || typeof b.input !== "object" || Array.isArray(b.input))
            fail(`${at}.input: Input should be a valid dictionary`);
          usedTools = true;
          break;
        case "tool_result":
          if (m.role !== "user") fail(`${at}: tool_result blocks are only allowed in user messages`);
          if (seenOther) fail(`${at}: tool_result blocks must come FIRST in the content array, before any other content`);
          usedTools = true;
          break;
        case "thinking":
        case "redacted_thinking": {
          if (m.role !== "assistant") fail(`${at}: thinking blocks are only allowed in assistant messages`);
          const issued = b.type === "thinking" ? memory.signatures.get(String(b.signature)) : undefined;
          if (b.type === "thinking" && (!issued || issued.thinking !== b.thinking))
            fail(`${at}: Invalid \`signature\` in \`thinking\` block`);
          if (issued && issued.model !== model)
            fail(`${at}: thinking blocks cannot be passed to a model other than the one that produced them`);
          break;
        }
        default:
          fail(`${at}.type: Input tag '${String(b?.type)}' found using 'type' does not match any of the expected tags`);
      }
    });
  });
  if (usedTools && toolNames.size === 0)
    fail("tools: Requests which include `tool_use` or `tool_result` blocks must define tools.");
  if (breakpoints > 4) fail(`A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);

  // tool_use ↔ tool_result pairing, and the thinking of the current tool-use turn.
  messages.forEach((m, i) => {
    if (m.role !== "assistant" || !Array.isArray(m.content)) return;
    const uses = (m.content as Block[]).filter((b) => b.type === "tool_use").map((b) => b.id as string);
    if (uses.length === 0) return;
    const next = messages[i + 1];
    if (!next) return;
    const results = new Set(
      blocksOf(next.content)
        .filter((b) => b.type === "tool_result")
        .map((b) => b.tool_use_id),
    );
    const missing = uses.filter((id) => !results.has(id));
    if (missing.length > 0) {
      fail(
        `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
    const current = i === messages.length - 2;
    const issued = [...memory.signatures.entries()].filter(([, v]) => v.toolUses.some((id) => uses.includes(id)));
    if (!current || issued.length === 0) return;
    const sent = (m.content as Block[]).filter((b) => b.type === "thinking").map((b) => b.signature);
    const first = (m.content as Block[]).findIndex((b) => b.type !== "thinking" && b.type !== "redacted_thinking");
    const expected = issued.map(([sig]) => sig);
    if (first === 0 || expected.some((sig, k) => sent[k] !== sig)) {
      fail(
        `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(m.content[0]?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceding the last set of \`tool_use\` and \`tool_result\` blocks). Pass the thinking blocks back unmodified.`,
      );
    }
  });
}

// ---------------------------------------------------------------- prompt caching

interface CacheUse {
  read: number;
  creation: number;
  total: number;
}

/**
 * Prefixes end at cache_control breakpoints, in the documented order tools → system → messages.
 * The longest prefix already cached is read; the longest one is written (when long enough).
 */
function cacheUse(body: Record<string, any>, memory: Memory, now: number): CacheUse {
  const pieces: { text: string; tokens: number; breakpoint: boolean }[] = [];
  for (const t of body.tools ?? [])
    pieces.push({ text: JSON.stringify(t), tokens: tokensOf(JSON.stringify(t)), breakpoint: !!t.cache_control });
  for (const b of typeof body.system === "string" ? [{ type: "text", text: body.system }] : (body.system ?? [])) {
    pieces.push({ text: JSON.stringify(b), tokens: tokensOf(b.text), breakpoint: !!b.cache_control });
  }
  for (const m of body.messages as Block[]) {
    for (const b of blocksOf(m.content)) {
      pieces.push({
        text: `${m.role}:${JSON.stringify({ ...b, cache_control: undefined })}`,
        tokens: blockTokens(b),
        breakpoint: !!b.cache_control,
      });
    }
  }
  const total = pieces.reduce((n, p) => n + p.tokens, 0);
  if (body.cache_control && pieces.length > 0) (pieces.at(-1) as (typeof pieces)[number]).breakpoint = true;
  const hash = createHash("sha256").update(String(body.model));
  let tokens = 0;
  const points: { key: string; tokens: number }[] = [];
  for (const p of pieces) {
    hash.update(p.text);
    tokens += p.tokens;
    if (p.breakpoint && tokens >= MIN_CACHEABLE_TOKENS) points.push({ key: hash.copy().digest("hex"), tokens });
  }
  let read = 0;
  for (const p of points) {
    const expires = memory.cache.get(p.key);
    if (expires !== undefined && expires > now) read = p.tokens;
  }
  const last = points.at(-1);
  const creation = last && last.tokens > read ? last.tokens - read : 0;
  for (const p of points) memory.cache.set(p.key, now + CACHE_TTL_MS);
  return { read, creation, total };
}

// ---------------------------------------------------------------- answering

interface Answer {
  content: Block[];
  stop_reason: string;
  stop_sequence: string | null;
  stop_details: Record<string, unknown> | null;
  thinkingTokens: number;
  outputTokens: number;
}

function valueFor(schema: Record<string, any> | undefined, hint: string): unknown {
  switch (schema?.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, any>)) out[k] = valueFor(v, k);
      return out;
    }
    case "array":
      return [valueFor(schema.items, hint)];
    case "number":
    case "integer":
      return 3;
    case "boolean":
      return true;
    default:
      return Array.isArray(schema?.enum) ? schema.enum[0] : `${hint}-value`;
  }
}

/** What the fake's adaptive thinking costs per answer (counted in output_tokens, as thinking is). */
const THINKING_TOKENS = 24;

const REFUSAL_DETAILS = {
  type: "refusal",
  category: "general_harms",
  explanation: "This request was declined because it could be related to an area that was determined as harmful.",
};

function answer(body: Record<string, any>, scenarios: Set<Scenario>, memory: Memory): Answer {
  const messages = body.messages as Block[];
  const last = messages.at(-1) as Block;
  const lastBlocks = blocksOf(last.content);
  const thought = body.thinking?.display === "summarized" ? "Considering the request." : "";
  const thinking: Block = { type: "thinking", thinking: thought, signature: memory.sign(body.model, thought) };
  const budget = Math.max(0, body.max_tokens - THINKING_TOKENS);
  const finish = (
    content: Block[],
    stop = "end_turn",
    details: Record<string, unknown> | null = null,
    thought = true,
  ): Answer => {
    let stopReason = stop;
    let stopSequence: string | null = null;
    const out = [...(thought ? [thinking] : []), ...content].map((b) => ({ ...b }));
    for (const b of out) {
      if (b.type !== "text") continue;
      for (const s of (body.stop_sequences ?? []) as string[]) {
        const at = b.text.indexOf(s);
        if (at >= 0) {
          b.text = b.text.slice(0, at);
          stopReason = "stop_sequence";
          stopSequence = s;
        }
      }
      if (tokensOf(b.text) > budget) {
        b.text = b.text.slice(0, budget * 4);
        stopReason = "max_tokens";
      }
    }
    const visible = out.filter((b) => b.type !== "text" || b.text.length > 0);
    const tokens = visible.reduce((n, b) => n + (b.type === "thinking" ? 0 : blockTokens(b)), 0);
    if (stopReason === "tool_use") {
      const entry = memory.signatures.get(thinking.signature);
      if (entry) entry.toolUses = visible.filter((b) => b.type === "tool_use").map((b) => b.id);
    }
    const thinkingTokens = thought ? THINKING_TOKENS : 0;
    return {
      content: visible,
      stop_reason: stopReason,
      stop_sequence: stopSequence,
      stop_details: details,
      thinkingTokens,
      outputTokens: Math.max(1, tokens + thinkingTokens),
    };
  };

  // The classifier stepped in before the model wrote anything: no content at all.
  if (scenarios.has("safety_input")) return finish([], "refusal", REFUSAL_DETAILS, false);
  if (scenarios.has("safety_output")) return finish([{ type: "text", text: "Hello.." }], "refusal", REFUSAL_DETAILS);

  const results = lastBlocks.filter((b) => b.type === "tool_result");
  if (results.length > 0) {
    const said = results.map((r) => textOfBlocks(blocksOf(r.content))).join("; ");
    return finish([{ type: "text", text: `According to the tool: ${said}` }]);
  }
  const tools = (body.tools ?? []) as Block[];
  const choice = body.tool_choice?.type ?? "auto";
  if (tools.length > 0 && choice !== "none") {
    const tool = (choice === "tool" ? tools.find((t) => t.name === body.tool_choice.name) : tools[0]) as Block;
    return finish(
      [
        { type: "text", text: "Let me look that up." },
        { type: "tool_use", id: toolUseId(), name: tool.name, input: valueFor(tool.input_schema, "lisbon") },
      ],
      "tool_use",
    );
  }
  const format = body.output_config?.format;
  if (format) return finish([{ type: "text", text: JSON.stringify(valueFor(format.schema, "answer")) }]);
  const images = lastBlocks.filter((b) => b.type === "image");
  const prompt = textOfBlocks(lastBlocks).replace(/\s+/g, " ").trim();
  if (images.length > 0) {
    const seen = images.map((b, i) => {
      const size = b.source?.type === "base64" ? imageSize(Buffer.from(String(b.source.data), "base64")) : null;
      return `image ${i + 1} is ${size ? `${size.width}x${size.height}` : "an image"} (${b.source?.media_type ?? "url"})`;
    });
    return finish([{ type: "text", text: `Looking at ${images.length} image(s): ${seen.join(", ")}. Asked: ${prompt}` }]);
  }
  return finish([{ type: "text", text: `Here is what I can say about "${prompt}": it is a fine subject for a short answer.` }]);
}

function usageOf(body: Record<string, any>, a: Answer, cache: CacheUse) {
  return {
    input_tokens: Math.max(1, cache.total - cache.read - cache.creation),
    cache_creation_input_tokens: cache.creation,
    cache_read_input_tokens: cache.read,
    cache_creation: { ephemeral_5m_input_tokens: cache.creation, ephemeral_1h_input_tokens: 0 },
    output_tokens: a.outputTokens,
    output_tokens_details: { thinking_tokens: a.thinkingTokens },
    server_tool_use: null,
    service_tier: "standard",
    inference_geo: body.inference_geo ?? "global",
  };
}

function message(body: Record<string, any>, a: Answer, cache: CacheUse) {
  return {
    id: messageId(),
    type: "message",
    role: "assistant",
    model: body.model,
    content: a.content,
    stop_reason: a.stop_reason,
    stop_sequence: a.stop_sequence,
    stop_details: a.stop_details,
    container: null,
    usage: usageOf(body, a, cache),
  };
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function stream(
  res: ServerResponse,
  body: Record<string, any>,
  a: Answer,
  cache: CacheUse,
  scenarios: Set<Scenario>,
  fault: boolean,
) {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "request-id": requestId() });
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const full = message(body, a, cache);
  send("message_start", {
    message: {
      ...full,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      usage: { ...full.usage, output_tokens: 1, output_tokens_details: null },
    },
  });
  send("ping", {});
  if (scenarios.has("malformed")) {
    res.end("event: content_block_start\ndata: {not json\n\n");
    return;
  }
  a.content.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const [k, part] of pieces(block.text, 12).entries()) {
        send("content_block_delta", { index, delta: { type: "text_delta", text: part } });
        if (fault && k === 0) {
          send("error", { error: { type: "overloaded_error", message: "Overloaded" } });
          res.end();
          throw new Halt();
        }
      }
    } else if (block.type === "tool_use") {
      send("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } });
      for (const part of pieces(JSON.stringify(block.input), 7))
        send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: part } });
    } else if (block.type === "thinking") {
      send("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
      if (block.thinking) send("content_block_delta", { index, delta: { type: "thinking_delta", thinking: block.thinking } });
      send("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature } });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", {
    delta: { stop_reason: a.stop_reason, stop_sequence: a.stop_sequence, stop_details: a.stop_details, container: null },
    usage: {
      input_tokens: full.usage.input_tokens,
      cache_creation_input_tokens: full.usage.cache_creation_input_tokens,
      cache_read_input_tokens: full.usage.cache_read_input_tokens,
      output_tokens: full.usage.output_tokens,
      output_tokens_details: full.usage.output_tokens_details,
      server_tool_use: null,
    },
  });
  send("message_stop", {});
  res.end();
}

class Halt extends Error {}

// ---------------------------------------------------------------- server

export async function start() {
  const server = new FakeServer();
  const { log } = server;
  const memory = new Memory();
  const key = fakeKey(provider);

  return server.listen(async (req, res, url) => {
    const raw = await readBody(req);
    if (req.method !== "POST" || url.pathname !== "/v1/messages") return errorBody(res, 404, "not_found_error", "Not found");
    if (req.headers["x-api-key"] !== key) return errorBody(res, 401, "authentication_error", "invalid x-api-key");
    if (!req.headers[VERSION_HEADER])
      return errorBody(res, 400, "invalid_request_error", "anthropic-version: header is required");
    let body: Record<string, any>;
    try {
      body = JSON.parse(raw.toString("utf8"));
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new Error("not an object");
    } catch {
      return errorBody(res, 400, "invalid_request_error", "There was an issue with your request body: it is not valid JSON.");
    }

    const messages: Block[] = Array.isArray(body.messages) ? body.messages : [];
    const users = messages.filter((m) => m?.role === "user");
    const lastText = textOfBlocks(blocksOf(users.at(-1)?.content));
    const allText = users.map((m) => textOfBlocks(blocksOf(m.content))).join("\n");
    const tag = tagOf(lastText) !== "untagged" ? tagOf(lastText) : tagOf(allText);
    const prior = log.count(tag, "submit");
    log.record(tag, req, "submit", body);
    const scenarios = scenariosOf(lastText, provider);

    if (scenarios.has("down")) return errorBody(res, 529, "overloaded_error", "Overloaded");
    if (lastText.includes("#anthropic:rate_limited") || (scenarios.has("submit_429") && prior === 0)) {
      const wait = lastText.includes("#anthropic:rate_limited") ? "30" : "1";
      return errorBody(
        res,
        429,
        "rate_limit_error",
        "This request would exceed your organization's rate limit of 50 requests per minute.",
        {
          "retry-after": wait,
          "anthropic-ratelimit-requests-limit": "50",
          "anthropic-ratelimit-requests-remaining": "0",
          "anthropic-ratelimit-requests-reset": new Date(Date.now() + Number(wait) * 1000).toISOString(),
        },
      );
    }
    if (scenarios.has("submit_5xx") && prior === 0) return errorBody(res, 500, "api_error", "Internal server error");

    try {
      validate(body, memory);
    } catch (e) {
      if (e instanceof Invalid) return errorBody(res, 400, "invalid_request_error", e.message);
      throw e;
    }
    const a = answer(body, scenarios, memory);
    const cache = cacheUse(body, memory, Date.now());
    if (body.stream === true) {
      try {
        stream(res, body, a, cache, scenarios, lastText.includes("#anthropic:stream_error"));
      } catch (e) {
        if (!(e instanceof Halt)) throw e;
      }
      return;
    }
    const id = requestId();
    if (scenarios.has("malformed")) {
      // A 200 whose Message lacks its content.
      json(res, 200, { id: messageId(), type: "message", role: "assistant", model: body.model }, { "request-id": id });
      return;
    }
    json(res, 200, message(body, a, cache), { "request-id": id });
  });
}
