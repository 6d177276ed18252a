/**
 * Thinking blocks across a tool round trip. Claude Sonnet 5.5 and Opus 5.5 think by default (it
 * cannot be turned off, only reduced), and Anthropic requires that "within a tool-use turn" the
 * assistant's thinking blocks come back unmodified, in their order, with the tool results
 * ("Thinking in tool and multi-turn workflows"; thinking blocks are also "tied to the model that
 * produced them"). The OpenAI wire format has no place for them, but every client echoes a tool
 * call's `id` verbatim, so the thinking that preceded a tool_use block rides in that tool call's id:
 *
 *   <tool_use id>.th1.<base64url of {"m": upstream model, "b": [thinking blocks]}>
 *
 * Anthropic's tool_use ids never contain ".", so the split is unambiguous. On the way back the
 * original id is restored for both the tool_use and the tool_result, and the blocks are replayed
 * only to the model that produced them. With the default `display: "omitted"` a block is an empty
 * text and its signature, so the id stays short.
 */

import { fromBase64Url, toBase64Url } from "../../lib/base64";

const MARK = ".th1.";

export type ThinkingBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

const textToBase64Url = (text: string) => toBase64Url(new TextEncoder().encode(text));
const textFromBase64Url = (text: string) => new TextDecoder().decode(fromBase64Url(text));

function isBlock(b: unknown): b is ThinkingBlock {
  const x = b as Record<string, unknown> | null;
  if (!x || typeof x !== "object") return false;
  if (x.type === "thinking") return typeof x.thinking === "string" && typeof x.signature === "string";
  return x.type === "redacted_thinking" && typeof x.data === "string";
}

/** Anthropic accepts tool ids of letters, digits, `_` and `-`; ids from other providers are made to fit the same way each time. */
export function toolUseId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return clean.length > 0 ? clean : "tool";
}

/** The id a client sees for a tool_use block, carrying the thinking blocks that came before it. */
export function toolCallId(id: string, thinking: ThinkingBlock[], model: string): string {
  if (thinking.length === 0) return id;
  return `${id}${MARK}${textToBase64Url(JSON.stringify({ m: model, b: thinking }))}`;
}

/**
 * The tool_use id and the thinking blocks a tool call id carries. Blocks produced by another
 * model are dropped (Anthropic rejects them); a payload a client altered is ignored.
 */
export function fromToolCallId(id: string, model: string): { id: string; thinking: ThinkingBlock[] } {
  const at = id.indexOf(MARK);
  if (at < 0) return { id: toolUseId(id), thinking: [] };
  const original = toolUseId(id.slice(0, at));
  try {
    const payload = JSON.parse(textFromBase64Url(id.slice(at + MARK.length))) as { m?: unknown; b?: unknown };
    if (payload.m !== model || !Array.isArray(payload.b) || !payload.b.every(isBlock)) return { id: original, thinking: [] };
    return { id: original, thinking: payload.b };
  } catch {
    return { id: original, thinking: [] };
  }
}
