/**
 * A request body the service refused before reading to its end (over a cap, a wrong file type,
 * no credentials) is read and discarded before the answer goes out. Answered early, workerd (and
 * `wrangler dev`'s proxy in front of it) may drop the connection while the client is still
 * writing: the client sees a reset (or the proxy's `500 Network connection lost`) instead of the
 * 413 or 422 it was given. Read to its end, the body leaves nothing pending and the answer arrives,
 * whatever the transfer shape (chunked or with a length) or pace.
 *
 * Past a hard ceiling (or a declared length above it) or a deadline, nothing more is read: the
 * answer goes out as it is, and the runtime closes the connection as it sees fit (a Worker cannot
 * ask for `Connection: close`; workerd drops the header). The ceiling is above every platform's
 * request body limit, so in production a body the platform lets through is always drained.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";

export const DRAIN_CEILING_BYTES = 512 * 1024 * 1024;
/** How long a slow client's leftover body is read before the answer goes out regardless. */
export const DRAIN_DEADLINE_MS = 120_000;

export const drainUnreadBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const raw = c.req.raw;
  await next();
  await drainRequest(raw);
};

/** Discards what is left of a request's body (nothing when it was read to its end). */
export async function drainRequest(raw: Request): Promise<void> {
  const body = raw.body;
  // Nothing sent, or read to its end (a reader still holds it).
  if (!body || body.locked) return;
  const declared = Number(raw.headers.get("Content-Length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > DRAIN_CEILING_BYTES) {
    await body.cancel().catch(() => undefined);
    return;
  }
  await discard(body, DRAIN_CEILING_BYTES, DRAIN_DEADLINE_MS);
}

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
