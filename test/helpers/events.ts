/** A client of GET /v1/tasks/{id}/events that reads the stream event by event. */
import { exports } from "cloudflare:workers";
import { BASE, type TestTenant } from "./api";

export interface StreamEvent {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

export interface EventReader {
  status: number;
  headers: Headers;
  /** The next block of the stream (an event, a `retry:` or a comment), or null once the stream ended. */
  nextBlock(): Promise<StreamEvent | null>;
  /** The next event with data, skipping `retry:` and comments; null once the stream ended. */
  next(): Promise<StreamEvent | null>;
  close(): Promise<void>;
}

export async function openEvents(t: TestTenant, taskId: string, headers: Record<string, string> = {}): Promise<EventReader> {
  const res = await exports.default.fetch(
    new Request(`${BASE}/v1/tasks/${taskId}/events`, { headers: { Authorization: `Bearer ${t.api_key}`, ...headers } }),
  );
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let ended = false;

  async function nextBlock(): Promise<StreamEvent | null> {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const out: StreamEvent = {};
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) out.comment = line.slice(1).trim();
          else {
            const colon = line.indexOf(":");
            const field = line.slice(0, colon) as keyof StreamEvent;
            out[field] = line.slice(colon + 1).replace(/^ /, "");
          }
        }
        return out;
      }
      if (ended || !reader) return null;
      const { done, value } = await reader.read();
      if (done) ended = true;
      else buffer += decoder.decode(value, { stream: true });
    }
  }

  return {
    status: res.status,
    headers: res.headers,
    nextBlock,
    async next() {
      for (;;) {
        const block = await nextBlock();
        if (block === null || block.data !== undefined) return block;
      }
    },
    async close() {
      await reader?.cancel().catch(() => undefined);
    },
  };
}
