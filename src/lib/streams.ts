/** Reading bodies under a cap: the one place that counts bytes as they arrive. */

/** Thrown by `readAtMost` when the body passes its cap (the rest is left unread). */
export class TooLarge extends Error {
  constructor(readonly cap: number) {
    super(`more than ${cap} bytes`);
    this.name = "TooLarge";
  }
}

/**
 * The whole body, refused with TooLarge as soon as it passes `cap` bytes. Errors of the stream
 * itself (a broken connection, a timeout) propagate as they are, after the stream is canceled.
 * `leaveRest`: over the cap, the rest stays readable rather than canceled (a request body, which
 * src/http/unread-body.ts discards before the answer, so that a client still sending can read it).
 */
export async function readAtMost(
  body: ReadableStream<Uint8Array> | null,
  cap: number,
  options: { leaveRest?: boolean } = {},
): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > cap) throw new TooLarge(cap);
      chunks.push(value);
    }
  } catch (e) {
    if (e instanceof TooLarge && options.leaveRest) reader.releaseLock();
    else await reader.cancel().catch(() => undefined);
    throw e;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
