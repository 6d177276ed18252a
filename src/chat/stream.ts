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
const event = (data: unknown) => encoder.encode(eventText(data));

export function eventStream(o: StreamOptions): ReadableStream<Uint8Array> {
  let ended = false;
  let created = Math.floor(Date.now() / 1000);

  /** The client gets its last byte first; the charge is settled after (kept alive by waitUntil). */
  function finish(controller: ReadableStreamDefaultController<Uint8Array>) {
    ended = true;
    if (o.includeUsage) controller.enqueue(event(o.relay.usageChunk(created)));
    controller.enqueue(event("[DONE]"));
    controller.close();
    kept(o, o.settlement.complete()).catch((e) =>
      console.error(JSON.stringify({ level: "error", request_id: o.requestId, message: `chat settlement failed: ${String(e)}` })),
    );
  }

  async function fail(controller: ReadableStreamDefaultController<Uint8Array>, error: unknown) {
    ended = true;
    o.abort.abort();
    const api = error instanceof ApiError ? error : new ApiError("model_request_failed", "The model stream failed unexpectedly.");
    if (!(error instanceof ApiError))
      console.error(JSON.stringify({ level: "error", request_id: o.requestId, message: String(error) }));
    try {
      controller.enqueue(event(errorEnvelope(api, o.requestId)));
      controller.enqueue(event("[DONE]"));
      controller.close();
    } catch {
      // The client has gone already.
    }
    await kept(o, o.settlement.cutShort()).catch(() => {});
  }

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        o.held.catch((e) => {
          if (!ended) void fail(controller, e);
        });
        if (o.first.created !== undefined) created = o.first.created;
        if (o.first.events.length) controller.enqueue(encoder.encode(o.first.events.map(eventText).join("")));
      },
      async pull(controller) {
        if (ended) return;
        // Every chunk one upstream read brought goes out in one write.
        let text = "";
        try {
          for (;;) {
            const next = await o.chunks.next();
            if (ended) return;
            if (next.done) return finish(controller);
            for (const chunk of Array.isArray(next.value) ? next.value : [next.value]) {
              const out = o.relay.chunkText(chunk);
              if (out) text += eventText(out);
            }
            if (text) {
              controller.enqueue(encoder.encode(text));
              return;
            }
          }
        } catch (e) {
          // What was relayed before the failure still goes out first.
          if (text && !ended) controller.enqueue(encoder.encode(text));
          if (!ended) await fail(controller, e);
        }
      },
      cancel() {
        if (ended) return;
        ended = true;
        o.abort.abort();
        o.chunks.return?.().catch(() => {});
        kept(o, o.settlement.cutShort()).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}
