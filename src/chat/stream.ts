/**
 * The event stream sent to the client. Each upstream chunk is written as soon as it arrives (the
 * client's reads pull the upstream, so nothing piles up here). The end is the usage chunk when
 * asked for, then `[DONE]`; the charge is settled after the client has it. A failure after the first byte becomes one
 * `data: {"error": …}` event before `[DONE]`; a client that goes away aborts the upstream call.
 */
import { ApiError, errorEnvelope } from "../errors/api-error";
import type { ChatObject } from "../providers/chat-upstream";
import type { ChatRelay } from "./relay";

export interface StreamSettlement {
  /** The stream ended normally: charge the upstream's usage. */
  complete(): Promise<void>;
  /** The stream ended early (failure or disconnect): charge only what the client received. */
  cutShort(): Promise<void>;
}

export interface StreamOptions {
  relay: ChatRelay;
  /**
   * The first forwardable events (their JSON text), already pulled so that earlier failures could
   * still be JSON errors, and the `created` time of the first.
   */
  first: { events: string[]; created?: number };
  chunks: AsyncIterator<ChatObject | ChatObject[]>;
  includeUsage: boolean;
  requestId: string;
  abort: AbortController;
  /** The credit hold; a refusal while streaming cuts the stream short. */
  held: Promise<void>;
  settlement: StreamSettlement;
  /** Keeps settlement running after the client has gone. */
  waitUntil(promise: Promise<unknown>): void;
}

/** A settlement the runtime must see through even if the client leaves meanwhile. */
function kept<T>(o: Pick<StreamOptions, "waitUntil">, p: Promise<T>): Promise<T> {
  o.waitUntil(p.catch(() => {}));
  return p;
}

const encoder = new TextEncoder();
const eventText = (data: unknown) => `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

/**
 * The stream is the readable side of the runtime's own byte stream, written by one loop: the
 * runtime sends it to the client natively, rather than calling back into JS for every piece as it
 * would for a stream built in JS. A write resolves once the client's side has taken it, so the
 * loop pulls the upstream no faster than the client reads; a write that fails means the client
 * has gone.
 */
export function eventStream(o: StreamOptions): ReadableStream<Uint8Array> {
  const { readable, writable } = new IdentityTransformStream();
  const writer = writable.getWriter();
  let ended = false;
  const created = o.first.created ?? Math.floor(Date.now() / 1000);
  const write = (text: string) => writer.write(encoder.encode(text));

  /** The client gets its last byte first; the charge is settled after (kept alive by waitUntil). */
  async function finish() {
    ended = true;
    try {
      await write(`${o.includeUsage ? eventText(o.relay.usageChunk(created)) : ""}${eventText("[DONE]")}`);
      await writer.close();
    } catch {
      // The client left at the very end: the upstream's whole answer was relayed, and is charged.
    }
    kept(o, o.settlement.complete()).catch((e) =>
      console.error(JSON.stringify({ level: "error", request_id: o.requestId, message: `chat settlement failed: ${String(e)}` })),
    );
  }

  async function fail(error: unknown, relayed: string) {
    ended = true;
    o.abort.abort();
    const api = error instanceof ApiError ? error : new ApiError("model_request_failed", "The model stream failed unexpectedly.");
    if (!(error instanceof ApiError))
      console.error(JSON.stringify({ level: "error", request_id: o.requestId, message: String(error) }));
    try {
      // What was relayed before the failure still goes out first.
      await write(`${relayed}${eventText(errorEnvelope(api, o.requestId))}${eventText("[DONE]")}`);
      await writer.close();
    } catch {
      // The client has gone already.
    }
    await kept(o, o.settlement.cutShort()).catch(() => {});
  }

  /** The client went away: the upstream call stops, and what it received is charged. */
  function gone() {
    if (ended) return;
    ended = true;
    o.abort.abort();
    o.chunks.return?.().catch(() => {});
    writer.abort().catch(() => {});
    kept(o, o.settlement.cutShort()).catch(() => {});
  }

  o.held.catch((e) => {
    if (!ended) void fail(e, "");
  });

  const pump = async () => {
    if (o.first.events.length) {
      try {
        await write(o.first.events.map(eventText).join(""));
      } catch {
        return gone();
      }
    }
    for (;;) {
      if (ended) return;
      // Every chunk one upstream read brought goes out in one write.
      let text = "";
      try {
        const next = await o.chunks.next();
        if (ended) return;
        if (next.done) return await finish();
        const value = next.value;
        if (Array.isArray(value)) {
          for (const chunk of value) {
            const out = o.relay.chunkText(chunk);
            if (out) text += `data: ${out}\n\n`;
          }
        } else {
          const out = o.relay.chunkText(value);
          if (out) text = `data: ${out}\n\n`;
        }
      } catch (e) {
        if (!ended) await fail(e, text);
        return;
      }
      if (!text) continue;
      try {
        await write(text);
      } catch {
        return gone();
      }
    }
  };
  o.waitUntil(pump());
  return readable;
}
