/**
 * Streamed chat completions: `data: <chunk>` events until `data: [DONE]`. A failure after the
 * first chunk arrives as one `data: {"error": {...}}` event, thrown here as a MediaApiError.
 */
import { type ErrorObject, MediaApiError } from "./errors.js";
import { parseEventStream } from "./sse.js";

/** One `chat.completion.chunk` (the document describes the stream as text, so its fields are open here). */
export interface ChatChunk {
  object: "chat.completion.chunk";
  id: string;
  model: string;
  choices: { index: number; delta: { role?: string; content?: string | null }; finish_reason: string | null }[];
  [field: string]: unknown;
}

export async function* chatStream(res: Response): AsyncGenerator<ChatChunk, void, undefined> {
  if (!res.body) return;
  for await (const ev of parseEventStream(res.body)) {
    if (ev.data === "[DONE]") return;
    const parsed = JSON.parse(ev.data) as ChatChunk & { error?: ErrorObject };
    if (parsed.error) throw new MediaApiError(res.status, parsed.error, { headers: res.headers });
    yield parsed;
  }
}
