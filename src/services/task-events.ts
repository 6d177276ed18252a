/**
 * The server-sent event stream of one task (GET /v1/tasks/{task_id}/events):
 *
 *   retry: 2000
 *
 *   id: 3
 *   event: status
 *   data: {"task_id":"task_…","status":"running","progress":{"percent":10,"stage":"generating","message":"…"}}
 *
 *   id: 4
 *   event: progress
 *   data: {"task_id":"task_…","status":"running","progress":{"percent":40,…}}
 *
 *   : keep-alive
 *
 *   id: 7
 *   event: done
 *   data: {…the final task envelope…}
 *
 * `status` when the status changed (and always as the first event of a stream that has news for
 * the client), `progress` when only the progress did. Ids are the task's `change_seq`, which only
 * grows: a client that reconnects with `Last-Event-ID` gets only what is newer. A terminal task
 * sends `done` at once, whatever the Last-Event-ID, and the stream ends after it. Changes that
 * happen between two reads are seen as one. A stream lasts at most STREAM_LIFETIME_MS; the client
 * reconnects (with Last-Event-ID) to go on.
 */

import { type TaskStatus, TERMINAL } from "../task-record/record";
import { followTask } from "../tasks/follow";
import type { TaskRead, TaskState } from "../tasks/task-answers";

/** The reconnection delay the stream asks of clients. */
export const RETRY_MS = 2000;
/** A comment line after this long without an event, so proxies keep the connection open. */
export const KEEP_ALIVE_MS = 15_000;
/** A stream ends after this long; the client reconnects with Last-Event-ID. */
export const STREAM_LIFETIME_MS = 5 * 60_000;

export interface TaskEventsOptions {
  taskId: string;
  /** The state read before the stream started (an unknown task was a 404 then). */
  first: TaskState;
  /** The client's Last-Event-ID, when it sent a valid one. */
  lastEventId: number | null;
  readState(): Promise<TaskState | null>;
  /** The task's envelope, for `done`. */
  readFinal(): Promise<TaskRead | null>;
  /** The request's: the stream stops when the client goes away. */
  signal?: AbortSignal;
}

/** `Last-Event-ID` as this stream writes ids (a non-negative integer); anything else is ignored. */
export function parseLastEventId(header: string | undefined): number | null {
  const value = header?.trim();
  return value && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

const encoder = new TextEncoder();

export function taskEventStream(o: TaskEventsOptions): ReadableStream<Uint8Array> {
  const stop = new AbortController();
  o.signal?.addEventListener("abort", () => stop.abort(), { once: true });
  let lastWrite = 0;

  function send(controller: ReadableStreamDefaultController<Uint8Array>, text: string): void {
    if (stop.signal.aborted) return;
    try {
      controller.enqueue(encoder.encode(text));
      lastWrite = Date.now();
    } catch {
      stop.abort();
    }
  }

  async function run(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    send(controller, `retry: ${RETRY_MS}\n\n`);
    // What the client already has: nothing, or (when its Last-Event-ID is current) the state as it is.
    let sentSeq = o.lastEventId ?? -1;
    let sentStatus: TaskStatus | null = o.lastEventId !== null && o.first.seq <= o.lastEventId ? o.first.status : null;
    const onState = async (s: TaskState): Promise<boolean> => {
      if (TERMINAL.has(s.status)) {
        const final = await o.readFinal();
        if (final) send(controller, `id: ${final.change_seq}\nevent: done\ndata: ${final.body}\n\n`);
        return true;
      }
      if (s.seq > sentSeq) {
        const kind = sentStatus === s.status ? "progress" : "status";
        const data = JSON.stringify({ task_id: o.taskId, status: s.status, progress: s.progress });
        send(controller, `id: ${s.seq}\nevent: ${kind}\ndata: ${data}\n\n`);
        sentSeq = s.seq;
        sentStatus = s.status;
      } else if (Date.now() - lastWrite >= KEEP_ALIVE_MS) {
        send(controller, ": keep-alive\n\n");
      }
      return stop.signal.aborted;
    };
    try {
      await followTask(() => o.readState(), {
        first: o.first,
        until: Date.now() + STREAM_LIFETIME_MS,
        signal: stop.signal,
        onState,
      });
    } catch (e) {
      console.error(JSON.stringify({ level: "error", message: `task events: ${String(e)}`, task_id: o.taskId }));
    }
    if (!stop.signal.aborted) {
      stop.abort();
      try {
        controller.close();
      } catch {
        // The client has gone already.
      }
    }
  }

  return new ReadableStream<Uint8Array>({
    start(controller) {
      void run(controller);
    },
    cancel() {
      stop.abort();
    },
  });
}
