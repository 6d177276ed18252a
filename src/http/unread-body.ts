/**
 * A request body the service refused before reading to its end (over a cap, a wrong file type,
 * no credentials) is read and discarded before the answer goes out. The runtime, and any proxy
 * in front of it, sends nothing back to a client still writing a body nobody reads: the client
 * sees its connection reset (or a proxy's 500) instead of the 413 or 422 it was given. Reading
 * the rest lets it read the answer, whatever the transfer shape or pace.
 *
 * Past a hard ceiling (or a declared length above it) nothing more is read: the answer goes out
 * with `Connection: close`, which a client that reads while it writes still receives.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";

/** Above every platform's request body limit, so a body it lets through is always drained. */
export const DRAIN_CEILING_BYTES = 512 * 1024 * 1024;
/** How long a slow client's leftover body is read before the answer goes out regardless. */
export const DRAIN_DEADLINE_MS = 120_000;

export const drainUnreadBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const raw = c.req.raw;
  await next();
  const body = raw.body;
  // Nothing sent, or a stream still held by something answering with it (none today).
  if (!body || body.locked) return;
  const declared = Number(raw.headers.get("Content-Length") ?? Number.NaN);
  const drained =
    Number.isFinite(declared) && declared > DRAIN_CEILING_BYTES
      ? false
      : await discard(body, DRAIN_CEILING_BYTES, DRAIN_DEADLINE_MS);
  if (drained) return;
  try {
    c.res.headers.set("Connection", "close");
  } catch {
    // An answer with immutable headers (a fetched or stored body) is copied to mark it.
    const res = new Response(c.res.body, c.res);
    res.headers.set("Connection", "close");
    c.res = res;
  }
};

/**
 * Reads `body` to its end, keeping nothing: true when it ended within `ceiling` bytes and
 * `deadlineMs`, false (the stream canceled) otherwise. A stream already read to its end ends at once.
 */
export async function discard(body: ReadableStream<Uint8Array>, ceiling: number, deadlineMs: number): Promise<boolean> {
  const reader = body.getReader();
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), deadlineMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === "late") break;
      if (next.done) return true;
      total += next.value.byteLength;
      if (total > ceiling) break;
    }
  } catch {
    // The client went away: there is no one left to answer.
    return true;
  } finally {
    clearTimeout(timer);
  }
  await reader.cancel().catch(() => undefined);
  return false;
}
