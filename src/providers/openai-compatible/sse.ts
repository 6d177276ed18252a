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
 * timer and a race per read. `seen()` after each read; `stop()` when done.
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
    seen() {
      last = Date.now();
    },
    /** Throws IdleTimeout when the reads ended because the body went quiet. */
    check() {
      if (expired) throw new IdleTimeout();
    },
    stop() {
      clearTimeout(timer);
    },
  };
}

const BODY_LIMIT = 8 * 1024 * 1024;

/**
 * A response's whole body as text. One whose length is declared within `limit` is read by the
 * runtime in one go, under one deadline of `ms`; any other as `readText` reads it.
 */
export function readBody(res: Response, ms: number, limit = BODY_LIMIT): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared <= limit) return readWithin(res.text(), ms);
  return readText(res.body, ms, limit);
}

/** The whole body as text, within `ms` of silence between its pieces; `limit` bounds memory. */
export async function readText(body: ReadableStream<Uint8Array> | null, ms: number, limit = BODY_LIMIT): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const watch = idleWatch(reader, ms);
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      watch.check();
      watch.seen();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
      if (text.length > limit) throw new Error(`upstream body larger than ${limit} characters`);
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    throw e;
  } finally {
    watch.stop();
  }
}

/**
 * The `data:` payloads of an event stream, yielded as soon as each event is complete. Comments,
 * `event:` and `id:` lines are skipped; multi-line data is joined with newlines.
 */
export async function* sseData(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<string, void, undefined> {
  const reader = body.getReader();
  const watch = idleWatch(reader, idleMs);
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      watch.check();
      watch.seen();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let nl = buffer.search(/\r\n|\r|\n/);
      while (nl >= 0) {
        // A lone CR at the end may be the first half of CRLF: wait for the next bytes.
        if (!done && nl === buffer.length - 1 && buffer[nl] === "\r") break;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (data.length) yield data.join("\n");
          data = [];
        } else if (line.startsWith("data:")) {
          data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
        }
        nl = buffer.search(/\r\n|\r|\n/);
      }
      if (done) {
        if (buffer.startsWith("data:")) data.push(buffer.slice(buffer.startsWith("data: ") ? 6 : 5));
        if (data.length) yield data.join("\n");
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
