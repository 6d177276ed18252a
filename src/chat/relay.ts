/**
 * What the client sees of the upstream's objects: this service's completion id and model id,
 * usage in the full shape, and a safety stop turned into `content_filtered`. It also keeps what
 * was delivered, so that a stream cut short is charged for what the client received.
 */

import { contentFiltered } from "../providers/chat-errors";
import type { ChatObject } from "../providers/chat-upstream";
import { type ChatUsage, normalizeUsage, textTokens, usageOf } from "./pricing";

const filtered = (choices: unknown) => Array.isArray(choices) && choices.some((c) => c?.finish_reason === "content_filter");

export class ChatRelay {
  /** The upstream's own count, once it has sent one. */
  usage: ChatUsage | null = null;
  private delivered = "";

  constructor(
    readonly id: string,
    readonly model: string,
    private readonly promptTokens: number,
    private readonly includeUsage: boolean,
  ) {}

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
    if (upstream.usage) this.usage = normalizeUsage(upstream.usage);
    if (filtered(upstream.choices)) throw contentFiltered();
    const choices = Array.isArray(upstream.choices) ? (upstream.choices as ChatObject[]) : [];
    if (choices.length === 0) return null;
    for (const c of choices) this.note(c.delta);
    const { usage: _usage, ...rest } = upstream;
    return {
      ...rest,
      id: this.id,
      object: "chat.completion.chunk",
      model: this.model,
      ...(this.includeUsage ? { usage: null } : {}),
    };
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
