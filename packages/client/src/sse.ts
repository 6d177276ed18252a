/**
 * A server-sent events reader following the HTML standard's parsing rules: lines end with CR,
 * LF or CRLF (also split across chunks); `:` lines are comments; `data` lines join with "\n";
 * `id` persists until changed (and is ignored when it holds NUL); `retry` takes digits only; an
 * event is dispatched at a blank line and an unfinished one at the end of the stream is dropped.
 */

export interface ServerSentEvent {
  /** `message` when the event named no type. */
  event: string;
  data: string;
  /** The last event id seen so far on this stream (what `Last-Event-ID` resumes from). */
  id: string | undefined;
  /** A reconnection delay the server asked for, in milliseconds. */
  retry: number | undefined;
}

export class StreamIdleError extends Error {
  override readonly name = "StreamIdleError";
}

export interface ParseOptions {
  /** Gives up (StreamIdleError) when nothing at all, not even a comment, arrives for this long. */
  idleTimeoutMs?: number;
  /** Called for every comment line (keep-alives), without the leading colon. */
  onComment?: (text: string) => void;
}

async function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number | undefined) {
  if (!ms) return reader.read();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StreamIdleError(`no data for ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } finally {
    clearTimeout(timer);
  }
}

export async function* parseEventStream(
  body: ReadableStream<Uint8Array>,
  options: ParseOptions = {},
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let first = true;
  let eventType = "";
  let data: string[] = [];
  let lastId: string | undefined;
  let retry: number | undefined;

  function* lines(text: string, final: boolean): Generator<string> {
    buffer += text;
    if (first && buffer.length > 0) {
      if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
      first = false;
    }
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== "\n" && c !== "\r") continue;
      // A CR at the very end may be the first half of a CRLF that the next chunk completes.
      if (c === "\r" && i === buffer.length - 1 && !final) break;
      yield buffer.slice(start, i);
      if (c === "\r" && buffer[i + 1] === "\n") i++;
      start = i + 1;
    }
    buffer = buffer.slice(start);
  }

  function field(line: string): ServerSentEvent | null {
    if (line === "") {
      const type = eventType || "message";
      eventType = "";
      if (data.length === 0) return null;
      const event = { event: type, data: data.join("\n"), id: lastId, retry };
      data = [];
      return event;
    }
    if (line.startsWith(":")) {
      options.onComment?.(line.slice(1).trimStart());
      return null;
    }
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") data.push(value);
    else if (name === "event") eventType = value;
    else if (name === "id") {
      if (!value.includes("\0")) lastId = value;
    } else if (name === "retry") {
      if (/^\d+$/.test(value)) retry = Number(value);
    }
    return null;
  }

  try {
    for (;;) {
      const { done, value } = await readWithin(reader, options.idleTimeoutMs);
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (const line of lines(text, done)) {
        const event = field(line);
        if (event) yield event;
      }
      if (done) return;
    }
  } finally {
    // Stops the body when the consumer leaves early (or the stream went idle).
    reader.cancel().catch(() => {});
  }
}
