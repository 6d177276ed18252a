/**
 * What the client sees of the upstream's objects: this service's completion id and model id,
 * usage in the full shape, and a safety stop turned into `content_filtered`. It also keeps what
 * was delivered, so that a stream cut short is charged for what the client received.
 */

import { contentFiltered } from "../providers/chat-errors";
import { type ChatObject, RAW_EVENT } from "../providers/chat-upstream";
import { type ChatUsage, normalizeUsage, textTokens, usageOf } from "./pricing";

function filtered(choices: unknown): boolean {
  if (!Array.isArray(choices)) return false;
  for (const c of choices) if (c?.finish_reason === "content_filter") return true;
  return false;
}

export class ChatRelay {
  /** The upstream's own count, once it has sent one. */
  usage: ChatUsage | null = null;
  private delivered = "";

  constructor(
    readonly id: string,
    readonly model: string,
    private readonly promptTokens: number,
    private readonly includeUsage: boolean,
  ) {
    this.ours = { id: `"id":${JSON.stringify(id)}`, model: `"model":${JSON.stringify(model)}` };
  }

  /** This service's id and model as members, in compact JSON. */
  private readonly ours: { id: string; model: string };

  /** A whole completion as returned to the client; throws content_filtered on a safety stop. */
  completion(upstream: ChatObject): ChatObject {
    if (filtered(upstream.choices)) throw contentFiltered();
    const choices = upstream.choices as ChatObject[];
    for (const c of choices) this.note(c.message);
    this.usage = upstream.usage ? normalizeUsage(upstream.usage) : null;
    return { ...upstream, id: this.id, object: "chat.completion", model: this.model, usage: this.used() };
  }

  /** The chunk to forward, or null when it only carried usage. Throws content_filtered on a safety stop. */
  chunk(upstream: ChatObject): ChatObject | null {
    if (!this.take(upstream)) return null;
    return this.rebuilt(upstream);
  }

  /** Notes what a chunk carries (usage, delivered text); false when it has nothing to forward. */
  private take(upstream: ChatObject): boolean {
    if (upstream.usage) this.usage = normalizeUsage(upstream.usage);
    const choices = upstream.choices;
    if (!Array.isArray(choices) || choices.length === 0) return false;
    if (filtered(choices)) throw contentFiltered();
    for (const c of choices as ChatObject[]) this.note(c.delta);
    return true;
  }

  private rebuilt(upstream: ChatObject): ChatObject {
    const { usage: _usage, ...rest } = upstream;
    return {
      ...rest,
      id: this.id,
      object: "chat.completion.chunk",
      model: this.model,
      ...(this.includeUsage ? { usage: null } : {}),
    };
  }

  /**
   * `chunk`, as the JSON text of the event to forward (null: nothing to forward). When the chunk
   * carries its upstream text (RAW_EVENT) in the usual shape, that text is forwarded with only its
   * id and model replaced, which costs no rebuild and no second serialization.
   */
  chunkText(upstream: ChatObject): string | null {
    if (!this.take(upstream)) return null;
    const raw = upstream[RAW_EVENT];
    return (typeof raw === "string" ? this.edited(raw, upstream) : null) ?? JSON.stringify(this.rebuilt(upstream));
  }

  /**
   * The upstream's text with this service's id and model, when that is exactly what `chunk` would
   * have built: the object is a chunk, its usage is absent or null as the client asked, and its id
   * and model appear as top-level members (before any nested object or array) in compact form.
   */
  private edited(raw: string, upstream: ChatObject): string | null {
    if (upstream.object !== "chat.completion.chunk") return null;
    if (typeof upstream.id !== "string" || typeof upstream.model !== "string") return null;
    let text = raw;
    if (upstream.usage === null) {
      if (!this.includeUsage) {
        // Asked of the upstream by the service, not by the client: dropped when it is the last member.
        if (!text.endsWith(',"usage":null}')) return null;
        text = `${text.slice(0, -',"usage":null}'.length)}}`;
      }
    } else if (upstream.usage !== undefined) return null;
    else if (this.includeUsage) {
      if (!text.endsWith("}")) return null;
      text = `${text.slice(0, -1)},"usage":null}`;
    }
    const withId = replaceTopLevel(text, this.member("id", upstream.id), this.ours.id);
    return withId === null ? null : replaceTopLevel(withId, this.member("model", upstream.model), this.ours.model);
  }

  /** The upstream's members as last seen (an upstream repeats its id and model in every chunk). */
  private seen: Record<string, [string, string]> = {};

  private member(name: "id" | "model", value: string): string {
    const last = this.seen[name];
    if (last && last[0] === value) return last[1];
    const text = `"${name}":${JSON.stringify(value)}`;
    this.seen[name] = [value, text];
    return text;
  }

  /** The final usage chunk of a stream, in the wire format. */
  usageChunk(created: number): ChatObject {
    return { id: this.id, object: "chat.completion.chunk", created, model: this.model, choices: [], usage: this.used() };
  }

  get hasDelivered(): boolean {
    return this.delivered.length > 0;
  }

  /** The upstream's count, or — when it never sent one — an estimate from what was delivered. */
  used(): ChatUsage {
    return this.usage ?? usageOf(this.promptTokens, textTokens(this.delivered));
  }

  private note(part: ChatObject | undefined) {
    if (!part) return;
    if (typeof part.content === "string") this.delivered += part.content;
    if (typeof part.refusal === "string") this.delivered += part.refusal;
    for (const call of Array.isArray(part.tool_calls) ? part.tool_calls : []) {
      this.delivered += `${call?.function?.name ?? ""}${call?.function?.arguments ?? ""}`;
    }
  }
}

/**
 * `text` with `member` (`"name":<value as JSON>`) replaced by `replacement`, when it is a member of
 * the top-level object: no `{` other than the first and no `[` comes before it (a string member
 * before it holding one of those only makes this answer null, never wrong).
 */
function replaceTopLevel(text: string, member: string, replacement: string): string | null {
  const at = text.indexOf(member);
  if (at <= 0 || text.charCodeAt(0) !== 123 || text.lastIndexOf("{", at) !== 0 || text.lastIndexOf("[", at) !== -1) return null;
  return `${text.slice(0, at)}${replacement}${text.slice(at + member.length)}`;
}
