/**
 * An OpenAI chat-completion request as a Messages API request (Anthropic's "Messages" reference
 * and the official TypeScript SDK's MessageCreateParams):
 *   system / developer messages    → top-level `system` text blocks, in order (Messages has no system role)
 *   user text and image_url parts  → text and image blocks (a data URI → base64 source; an http(s) URL → url source)
 *   assistant content + tool_calls → text and tool_use blocks (arguments parsed to the `input` object),
 *                                    with the thinking blocks carried in the tool call ids (thinking.ts)
 *   role "tool"                    → tool_result blocks in a user turn (consecutive turns of one role are merged,
 *                                    so every result of a turn arrives together, before any user text)
 *   tools / tool_choice            → tools with input_schema; auto / none / required→any / a named function→tool;
 *                                    parallel_tool_calls: false → disable_parallel_tool_use
 *   max_completion_tokens / max_tokens → max_tokens (required by Anthropic), never above the service's budget
 *   stop → stop_sequences; temperature, top_p as given (Anthropic's own ranges and model rules apply)
 *   response_format json_schema → output_config.format; json_object → an instruction (Messages has no JSON mode)
 *   reasoning_effort → output_config.effort; safety_identifier / user → metadata.user_id
 *   cache_control on text and image parts (and top level) → passed on, 5-minute entries only (the cards price those)
 * Fields Anthropic has no counterpart for (seed, logprobs, penalties, logit_bias, …) are not sent.
 */
import { ApiError } from "../../errors/api-error";
import { fromToolCallId } from "./thinking";

type Block = Record<string, unknown>;
interface Turn {
  role: "user" | "assistant";
  content: Block[];
}

/** Image media types the Messages API accepts in a base64 source. */
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);
const EFFORTS: Record<string, string> = { minimal: "low", low: "low", medium: "medium", high: "high", xhigh: "xhigh" };

export const JSON_INSTRUCTION =
  "Reply with one valid JSON object and nothing else: no prose before or after it, no markdown code fences.";

function invalid(param: string, message: string): ApiError {
  return new ApiError("invalid_request", message, { param });
}

function cacheControl(value: unknown, param: string): Block | undefined {
  if (value === undefined || value === null) return undefined;
  const c = value as { type?: unknown; ttl?: unknown };
  if (c.type === "ephemeral" && (c.ttl === undefined || c.ttl === "5m")) return { type: "ephemeral" };
  throw invalid(param, 'cache_control must be {"type": "ephemeral"}; only 5-minute cache entries are offered.');
}

function withCache(block: Block, part: Record<string, unknown>, param: string): Block {
  const c = cacheControl(part.cache_control, `${param}/cache_control`);
  return c ? { ...block, cache_control: c } : block;
}

/** Text blocks of a string or an array of text (and, for the assistant, refusal) parts; empty texts are left out. */
function textBlocks(content: unknown, param: string): Block[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content.length > 0 ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) throw invalid(param, "content must be a string or an array of parts.");
  const out: Block[] = [];
  content.forEach((part: Record<string, unknown>, i) => {
    const text = part?.type === "text" ? part.text : part?.type === "refusal" ? part.refusal : undefined;
    if (typeof text !== "string") throw invalid(`${param}/${i}`, "only text parts are accepted here.");
    if (text.length > 0) out.push(withCache({ type: "text", text }, part, `${param}/${i}`));
  });
  return out;
}

function imageBlock(part: Record<string, any>, param: string): Block {
  const url = part.image_url?.url;
  if (typeof url !== "string") throw invalid(`${param}/image_url/url`, "image_url.url is required.");
  const data = /^data:([^;,]+)((?:;[^;,]*)*);base64,(.*)$/s.exec(url);
  if (data) {
    const mediaType = (data[1] as string).toLowerCase();
    if (!IMAGE_TYPES.has(mediaType)) {
      throw invalid(`${param}/image_url/url`, `Claude reads JPEG, PNG, GIF and WebP images, not ${mediaType}.`);
    }
    return withCache({ type: "image", source: { type: "base64", media_type: mediaType, data: data[3] } }, part, param);
  }
  if (/^https?:\/\//i.test(url)) return withCache({ type: "image", source: { type: "url", url } }, part, param);
  throw invalid(`${param}/image_url/url`, "an image must be an http(s) URL or a base64 data URI.");
}

function userBlocks(content: unknown, param: string): Block[] {
  if (!Array.isArray(content)) return textBlocks(content, param);
  const out: Block[] = [];
  content.forEach((part: Record<string, any>, i) => {
    const at = `${param}/${i}`;
    if (part?.type === "image_url") out.push(imageBlock(part, at));
    else if (part?.type === "text" && typeof part.text === "string") {
      if (part.text.length > 0) out.push(withCache({ type: "text", text: part.text }, part, at));
    } else throw invalid(at, "a user message part must be text or image_url.");
  });
  return out;
}

function toolInput(args: unknown, param: string): Record<string, unknown> {
  if (args === undefined || args === null || args === "") return {};
  let parsed: unknown;
  try {
    parsed = typeof args === "string" ? JSON.parse(args) : args;
  } catch {
    throw invalid(param, "function.arguments must be a JSON object.");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw invalid(param, "function.arguments must be a JSON object.");
  return parsed as Record<string, unknown>;
}

/**
 * Text, then each tool_use preceded by the thinking blocks its id carries. Anthropic's own order
 * is thinking → text → tool_use (→ thinking → tool_use …), which this rebuilds.
 */
function assistantBlocks(m: Record<string, any>, param: string, model: string): Block[] {
  const text = textBlocks(m.content, `${param}/content`);
  if (text.length === 0 && typeof m.refusal === "string" && m.refusal.length > 0) text.push({ type: "text", text: m.refusal });
  const calls: Record<string, any>[] = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  if (calls.length === 0) return text;
  const out: Block[] = [];
  calls.forEach((call, j) => {
    const { id, thinking } = fromToolCallId(String(call?.id ?? ""), model);
    out.push(...thinking);
    if (j === 0) out.push(...text);
    out.push({
      type: "tool_use",
      id,
      name: call?.function?.name,
      input: toolInput(call?.function?.arguments, `${param}/tool_calls/${j}/function/arguments`),
    });
  });
  return out;
}

function toolResult(m: Record<string, any>, param: string): Block {
  const content = textBlocks(m.content, `${param}/content`);
  return {
    type: "tool_result",
    tool_use_id: fromToolCallId(String(m.tool_call_id ?? ""), "").id,
    ...(content.length > 0 ? { content } : {}),
  };
}

function inputSchema(parameters: unknown): Record<string, unknown> {
  if (!parameters || typeof parameters !== "object") return { type: "object", properties: {} };
  const p = parameters as Record<string, unknown>;
  return p.type === undefined ? { type: "object", ...p } : p;
}

function tools(body: Record<string, any>): Block {
  const list: Record<string, any>[] = Array.isArray(body.tools) ? body.tools : [];
  if (list.length === 0) return {};
  const out: Block = {
    tools: list.map((t) => ({
      name: t.function?.name,
      ...(typeof t.function?.description === "string" ? { description: t.function.description } : {}),
      input_schema: inputSchema(t.function?.parameters),
      ...(t.function?.strict === true ? { strict: true } : {}),
    })),
  };
  const asked = body.tool_choice;
  let choice: Record<string, unknown> | undefined;
  if (asked === "none") choice = { type: "none" };
  else if (asked === "auto") choice = { type: "auto" };
  else if (asked === "required") choice = { type: "any" };
  else if (asked && typeof asked === "object" && typeof asked.function?.name === "string") {
    choice = { type: "tool", name: asked.function.name };
  }
  if (body.parallel_tool_calls === false && choice?.type !== "none") {
    choice = { ...(choice ?? { type: "auto" }), disable_parallel_tool_use: true };
  }
  if (choice) out.tool_choice = choice;
  return out;
}

/** The output budget: the request's own limit when it set one, never above what the service reserved for. */
function maxTokens(body: Record<string, any>, budget: number): number {
  const asked = body.max_completion_tokens ?? body.max_tokens;
  const limit = typeof asked === "number" && asked >= 1 ? Math.min(Math.floor(asked), budget) : budget;
  return Math.max(1, limit);
}

/** The Messages request for a chat-completion body (its `model` already the upstream's). Always streamed: see chat.ts. */
export function messagesRequest(body: Record<string, any>, budget: number): Record<string, unknown> {
  const model = String(body.model ?? "");
  if (typeof body.n === "number" && body.n > 1) throw invalid("/n", "Claude answers one choice per request; n must be 1.");
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid("/messages", "messages must not be empty.");

  const system: Block[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], content: Block[]) => {
    if (content.length === 0) return;
    const last = turns.at(-1);
    // Messages combines consecutive turns of one role anyway; merging here keeps tool results first in their turn.
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  body.messages.forEach((m: Record<string, any>, i: number) => {
    const param = `/messages/${i}`;
    switch (m?.role) {
      case "system":
      case "developer":
        system.push(...textBlocks(m.content, `${param}/content`));
        break;
      case "user":
        push("user", userBlocks(m.content, `${param}/content`));
        break;
      case "assistant":
        push("assistant", assistantBlocks(m, param, model));
        break;
      case "tool":
        push("user", [toolResult(m, param)]);
        break;
      default:
        throw invalid(`${param}/role`, `Unknown role '${String(m?.role)}'.`);
    }
  });
  if (turns.length === 0) throw invalid("/messages", "messages must contain at least one non-empty user or assistant message.");

  const outputConfig: Block = {};
  const format = body.response_format;
  if (format?.type === "json_schema" && format.json_schema?.schema && typeof format.json_schema.schema === "object") {
    outputConfig.format = { type: "json_schema", schema: format.json_schema.schema };
  } else if (format?.type === "json_schema" || format?.type === "json_object") {
    system.push({ type: "text", text: JSON_INSTRUCTION });
  }
  const effort = typeof body.reasoning_effort === "string" ? EFFORTS[body.reasoning_effort] : undefined;
  if (effort) outputConfig.effort = effort;

  const stop = typeof body.stop === "string" ? [body.stop] : Array.isArray(body.stop) ? body.stop : [];
  const user = typeof body.safety_identifier === "string" ? body.safety_identifier : body.user;
  const topCache = cacheControl(body.cache_control, "/cache_control");

  return {
    model,
    max_tokens: maxTokens(body, budget),
    ...(system.length > 0 ? { system } : {}),
    messages: turns,
    ...tools(body),
    ...(stop.length > 0 ? { stop_sequences: stop } : {}),
    ...(typeof body.temperature === "number" ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === "number" ? { top_p: body.top_p } : {}),
    ...(Object.keys(outputConfig).length > 0 ? { output_config: outputConfig } : {}),
    ...(typeof user === "string" && user.length > 0 ? { metadata: { user_id: user } } : {}),
    ...(topCache ? { cache_control: topCache } : {}),
    stream: true,
  };
}
