/**
 * Following a task to its end: the task's event stream first (`GET /v1/tasks/{id}/events`,
 * resumed with Last-Event-ID whenever it drops), and plain reads of the task when the server has
 * no stream to offer (404 for the route, 405, 501, or an answer that is not text/event-stream)
 * or keeps dropping it: `Prefer: wait` lets the server hold each read until the task changes,
 * and `If-None-Match` makes an unchanged read cost nothing.
 */
import { MediaApiError, MediaConnectionError, MediaTimeoutError } from "./errors.js";
import { parseEventStream, StreamIdleError } from "./sse.js";
import type { Transport } from "./transport.js";
import { type ConditionalTask, isTerminal, type TaskEnvelope, type TaskEvent, type TaskUpdate } from "./types.js";

/**
 * What following a task needs of the client: conditional reads of the task and the transport's
 * sleep. Declared here, so that this file does not import the client that imports it.
 */
export interface TaskReader {
  tasks: {
    getIfChanged(
      taskId: string,
      options: { signal: AbortSignal; timeoutMs: number; preferWaitSeconds?: number; etag?: string },
    ): Promise<ConditionalTask>;
  };
  transport: Pick<Transport, "sleep">;
}

export interface EventsOptions {
  /** Resume after this event id (sent as Last-Event-ID). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Reconnections in a row that bring no event before giving up (default 5). */
  maxReconnects?: number;
  /** Reconnect when nothing, not even a keep-alive, arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
}

export interface WaitOptions {
  /** Called with every change of status or progress. */
  onProgress?: (update: TaskUpdate) => void;
  /** Gives up with MediaTimeoutError after this long; the task goes on. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Between reads when the server does not hold them (default 1 s, growing to 5 s). */
  pollIntervalMs?: number;
  /** Skip the event stream and read the task repeatedly. */
  polling?: boolean;
}

/** The server has no event stream for this task: follow it by reading it. */
export class EventStreamUnavailable extends Error {
  override readonly name = "EventStreamUnavailable";
}

const RECONNECT_MS = 1000;
/** How long a read may be held (`Prefer: wait`) when only the end of the task matters. */
const HELD_READ_SECONDS = 25;
/** A stream open this long was healthy, whatever it brought. */
const HEALTHY_STREAM_MS = 30_000;

function unavailable(e: unknown): boolean {
  if (!(e instanceof MediaApiError) || e instanceof MediaConnectionError) return false;
  // A 404 for the task itself is an answer; a 404 for the route means there is no stream here.
  return (e.status === 404 && e.code !== "task_not_found") || e.status === 405 || e.status === 501;
}

function parseData(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

export async function* taskEvents(
  transport: Transport,
  taskId: string,
  options: EventsOptions = {},
): AsyncGenerator<TaskEvent, void, undefined> {
  let lastId = options.lastEventId;
  let retryMs = RECONNECT_MS;
  let quiet = 0;
  const maxReconnects = options.maxReconnects ?? 5;
  for (;;) {
    let res: Response;
    try {
      res = await transport.call("streamTaskEvents", {
        path: { task_id: taskId },
        accept: "text/event-stream",
        headers: lastId ? { "Last-Event-ID": lastId } : {},
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (e) {
      if (unavailable(e)) throw new EventStreamUnavailable(`no event stream for ${taskId}: ${(e as Error).message}`);
      throw e;
    }
    if (!/^text\/event-stream/i.test(res.headers.get("content-type") ?? "") || !res.body) {
      await res.body?.cancel().catch(() => {});
      throw new EventStreamUnavailable(`the events of ${taskId} answered ${res.headers.get("content-type") ?? "no body"}`);
    }
    let got = false;
    const openedAt = Date.now();
    try {
      for await (const ev of parseEventStream(res.body, { idleTimeoutMs: options.idleTimeoutMs ?? 60_000 })) {
        if (ev.id !== undefined) lastId = ev.id;
        if (ev.retry !== undefined) retryMs = ev.retry;
        const data = parseData(ev.data);
        if (ev.event === "done") {
          yield { event: "done", id: ev.id, data: data as TaskEnvelope };
          return;
        }
        if ((ev.event === "status" || ev.event === "progress") && data && typeof data === "object") {
          got = true;
          yield { event: ev.event, id: ev.id, data: data as TaskUpdate };
        }
      }
    } catch (e) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (!(e instanceof StreamIdleError) && !(e instanceof TypeError) && !isNetworkError(e)) throw e;
      // dropped: resume below
    }
    quiet = got || Date.now() - openedAt >= HEALTHY_STREAM_MS ? 0 : quiet + 1;
    if (quiet > maxReconnects) {
      throw new MediaConnectionError(`the event stream of ${taskId} closed ${quiet} times in a row without an event`);
    }
    await transport.sleep(retryMs, options.signal);
  }
}

function isNetworkError(e: unknown): boolean {
  const code = (e as { code?: unknown; cause?: { code?: unknown } })?.cause?.code ?? (e as { code?: unknown })?.code;
  return typeof code === "string" && /^(ECONNRESET|EPIPE|ETIMEDOUT|UND_ERR_|ERR_STREAM_PREMATURE_CLOSE)/.test(code);
}

function changed(a: TaskUpdate | undefined, b: TaskUpdate): boolean {
  return (
    !a ||
    a.status !== b.status ||
    a.progress?.percent !== b.progress?.percent ||
    a.progress?.stage !== b.progress?.stage ||
    a.progress?.message !== b.progress?.message ||
    a.progress?.queue_position !== b.progress?.queue_position ||
    a.progress?.eta_seconds !== b.progress?.eta_seconds
  );
}

export async function waitForTask(
  client: TaskReader,
  transport: Transport,
  task: string | { task_id: string; status?: string },
  options: WaitOptions = {},
): Promise<TaskEnvelope> {
  const taskId = typeof task === "string" ? task : task.task_id;
  if (typeof task === "object" && isTerminal(task.status) && "object" in task) return task as TaskEnvelope;

  const controller = new AbortController();
  const forward = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", forward, { once: true });
  if (options.signal?.aborted) forward();
  const timedOut = new MediaTimeoutError(taskId, options.timeoutMs ?? 0);
  const timer = options.timeoutMs ? setTimeout(() => controller.abort(timedOut), options.timeoutMs) : undefined;
  const signal = controller.signal;

  let last: TaskUpdate | undefined;
  const report = (u: TaskUpdate) => {
    if (!changed(last, u)) return;
    last = u;
    options.onProgress?.(u);
  };

  try {
    if (!options.polling) {
      try {
        for await (const ev of taskEvents(transport, taskId, { signal })) {
          if (ev.event === "done") {
            report(ev.data);
            return ev.data;
          }
          report(ev.data);
        }
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        if (!(e instanceof EventStreamUnavailable) && !(e instanceof MediaConnectionError)) throw e;
        // no stream (or it keeps failing): read the task instead
      }
    }
    return await poll(client, taskId, report, signal, options.pollIntervalMs ?? 1000, !!options.onProgress);
  } catch (e) {
    throw signal.aborted ? signal.reason : e;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", forward);
  }
}

async function poll(
  client: TaskReader,
  taskId: string,
  report: (u: TaskUpdate) => void,
  signal: AbortSignal,
  intervalMs: number,
  watching: boolean,
): Promise<TaskEnvelope> {
  let etag: string | undefined;
  let current: TaskEnvelope | undefined;
  let pause = intervalMs;
  for (;;) {
    // `Prefer: wait` holds a read until the task ends: right when only the end matters, but it
    // would hide progress from a caller watching it, who gets plain (conditional) reads instead.
    const got = await client.tasks.getIfChanged(taskId, {
      signal,
      timeoutMs: (HELD_READ_SECONDS + 30) * 1000,
      ...(watching ? {} : { preferWaitSeconds: HELD_READ_SECONDS }),
      ...(etag && current ? { etag } : {}),
    });
    etag = got.etag;
    if (got.task) current = got.task;
    if (current) {
      report(current);
      if (isTerminal(current.status)) return current;
    }
    if (!got.waited) {
      await client.transport.sleep(pause, signal);
      pause = Math.min(watching ? 3000 : 5000, Math.round(pause * 1.5));
    }
  }
}
