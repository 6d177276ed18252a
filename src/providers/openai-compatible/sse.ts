/** Reading an upstream body under an idle timeout, and splitting server-sent events. */

export class IdleTimeout extends Error {
  constructor() {
    super("no data from the upstream within the timeout");
    this.name = "IdleTimeout";
  }
}

/** One read that fails with IdleTimeout when nothing arrives within `ms`. */
export async function readWithin<T>(read: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new IdleTimeout()), ms);
  });
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Fails a reader's pending and later reads once nothing has arrived for `ms`: one timer for the
 * whole body, moved on lazily (it checks when the last piece came when it fires), rather than a
 * timer and a race per read. Read through it; `stop()` when done.
 */
export function idleWatch(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number) {
  let last = Date.now();
  let expired = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    const quiet = Date.now() - last;
    if (quiet < ms) {
      timer = setTimeout(check, ms - quiet);
      return;
    }
    expired = true;
    reader.cancel(new IdleTimeout()).catch(() => {});
  };
  timer = setTimeout(check, ms);
  return {
    /** The next read; IdleTimeout when the body went quiet (however the canceled read ended). */
    async read(): Promise<ReadableStreamReadResult<Uint8Array>> {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (e) {
        if (expired) throw new IdleTimeout();
        throw e;
      }
      if (expired) throw new IdleTimeout();
      last = Date.now();
      return result;
    },
    /** For a caller that reads `reader` itself: whether the body went quiet, and that a piece came. */
    get expired() {
      return expired;
    },
    seen() {
      last = Date.now();
    },
    stop() {
      clearTimeout(timer);
    },
  };
}

const BODY_LIMIT = 8 * 1024 * 1024;

/**
 * A response's whole body as text, read by the runtime in one go under one deadline of `ms`. A
 * declared length past `limit` is refused before reading; an undeclared one (a chunked answer) is
 * checked once read: a whole chat answer is small, and the isolate's own memory limit bounds an
 * upstream that would send without end, so the runtime's native read is worth more here than a
 * JS loop counting bytes.
 */
export async function readBody(res: Response, ms: number | null, limit = BODY_LIMIT): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    res.body?.cancel().catch(() => {});
    throw new Error(`upstream body larger than ${limit} bytes`);
  }
  // Without `ms`, the caller's own deadline (its fetch's signal) covers the read.
  const text = await (ms === null ? res.text() : readWithin(res.text(), ms));
  if (text.length > limit) throw new Error(`upstream body larger than ${limit} characters`);
  return text;
}

/**
 * Splits an event stream's text into the `data:` payloads of its complete events. Comments,
 * `event:` and `id:` lines are skipped; multi-line data is joined with newlines. Lines are cut by
 * index, each line end found once: no copy of the rest of the buffer per line.
 */
export class SseParser {
  private buffer = "";
  private data: string[] = [];

  /** Adds the next decoded text (`end`: the stream's last), and returns the events it completed. */
  push(text: string, end: boolean): string[] {
    const buffer = this.buffer + text;
    const out: string[] = [];
    let start = 0;
    let lf = buffer.indexOf("\n");
    let cr = buffer.indexOf("\r");
    for (;;) {
      if (lf !== -1 && lf < start) lf = buffer.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = buffer.indexOf("\r", start);
      const nl = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (nl === -1) break;
      // A lone CR at the end may be the first half of CRLF: wait for the next bytes.
      if (!end && nl === buffer.length - 1 && buffer.charCodeAt(nl) === 13) break;
      this.line(buffer.slice(start, nl), out);
      start = nl + (buffer.charCodeAt(nl) === 13 && buffer.charCodeAt(nl + 1) === 10 ? 2 : 1);
    }
    this.buffer = start > 0 ? buffer.slice(start) : buffer;
    if (end) {
      if (this.buffer !== "") this.line(this.buffer, out);
      this.line("", out);
      this.buffer = "";
    }
    return out;
  }

  private line(text: string, out: string[]) {
    if (text === "") {
      if (this.data.length) out.push(this.data.length === 1 ? (this.data[0] as string) : this.data.join("\n"));
      this.data = [];
    } else if (text.startsWith("data:")) {
      this.data.push(text.slice(text.charCodeAt(5) === 32 ? 6 : 5));
    }
  }
}

/**
 * The `data:` payloads of an event stream, as soon as each event is complete: every event that one
 * read of the body completed, together (so a consumer handles them in one turn).
 */
export async function* sseBatches(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<string[], void, undefined> {
  const reader = body.getReader();
  const watch = idleWatch(reader, idleMs);
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await watch.read();
      const out = parser.push(done ? decoder.decode() : decoder.decode(value, { stream: true }), done);
      if (out.length) yield out;
      if (done) {
        finished = true;
        return;
      }
    }
  } finally {
    watch.stop();
    // Stopping early (client gone, error, [DONE]) releases the upstream connection.
    if (!finished) reader.cancel().catch(() => {});
  }
}

/** The `data:` payloads of an event stream, one by one (sseBatches, flattened). */
export async function* sseData(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<string, void, undefined> {
  for await (const batch of sseBatches(body, idleMs)) yield* batch;
}
