/**
 * A read from a Durable Object, asked again when the object went away under it: a crash, a deploy
 * or a reset (`ctx.abort`) fails every call still waiting on the old instance, and the next call
 * reaches a fresh one. A read changes nothing, so asking again is safe; an overloaded object is
 * never asked again (Cloudflare's guidance: retrying adds to the overload), nor is a refusal of
 * this service's own (an id no object can have): it is an answer. `read` makes its own stub each
 * time, as a broken stub stays broken.
 */
import { ApiError } from "../errors/api-error";

export const OBJECT_READ_ATTEMPTS = 3;

export async function readObject<T>(read: () => Promise<T>, waitMs = 25): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (e) {
      if (attempt >= OBJECT_READ_ATTEMPTS || e instanceof ApiError || (e as { overloaded?: unknown } | null)?.overloaded === true)
        throw e;
      await new Promise((r) => setTimeout(r, waitMs * attempt));
    }
  }
}
