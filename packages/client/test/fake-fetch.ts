/**
 * An in-process stand-in for `fetch`: answers from a script of handlers, records every request
 * (method, URL, headers, body), and honours the abort signal as the real one does.
 */
import { runCli } from "../src/cli/main.js";
import { MediaClient } from "../src/client.js";
import type { ClientOptions } from "../src/transport.js";

export interface Seen {
  method: string;
  url: URL;
  headers: Headers;
  body: string | undefined;
}

/** An answer, or what the network does instead: fail to connect, or never answer. */
export type Handler = ((req: Seen, n: number) => Response | Promise<Response>) | "network-error" | "hang";

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

export function apiError(status: number, code: string, retryable: boolean, extra: Record<string, unknown> = {}, headers = {}) {
  return json(
    status,
    { error: { code, type: "api_error", message: `${code} happened`, retryable, request_id: "req_1", ...extra } },
    headers,
  );
}

/** A response whose body is the given chunks (strings), read one by one, then closed or broken off. */
export function stream(
  chunks: string[],
  headers: Record<string, string>,
  options: { status?: number; end?: "close" | "error" } = {},
) {
  const enc = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk !== undefined) controller.enqueue(enc.encode(chunk));
      else if (options.end === "error") controller.error(new TypeError("terminated"));
      else controller.close();
    },
  });
  return new Response(body, { status: options.status ?? 200, headers });
}

export function sse(chunks: string[], end: "close" | "error" = "close") {
  return stream(chunks, { "Content-Type": "text/event-stream; charset=utf-8" }, { end });
}

/** A fake fetch that routes `METHOD /path` to handlers; each route's handler list is used in order, the last one repeats. */
export function fakeFetch(routes: Record<string, Handler | Handler[]>) {
  const seen: Seen[] = [];
  const counts = new Map<string, number>();
  const fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const method = (init.method ?? "GET").toUpperCase();
    const req: Seen = {
      method,
      url,
      headers: new Headers(init.headers),
      body: typeof init.body === "string" ? init.body : init.body === undefined ? undefined : "[binary]",
    };
    seen.push(req);
    const key = `${method} ${url.pathname}`;
    const route = routes[key];
    if (!route) return apiError(404, "not_found", false);
    const list = Array.isArray(route) ? route : [route];
    const n = counts.get(key) ?? 0;
    counts.set(key, n + 1);
    const handler = list[Math.min(n, list.length - 1)] as Handler;
    const out = typeof handler === "string" ? handler : await handler(req, n);
    if (out === "network-error") throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    if (out === "hang") {
      return new Promise((_, reject) => {
        const signal = init.signal;
        if (signal?.aborted) reject(signal.reason);
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    return out;
  };
  return { fetch, seen };
}

/** A client on a fake fetch whose waits are recorded instead of slept. */
export function testClient(routes: Record<string, Handler | Handler[]>, options: Partial<ClientOptions> = {}) {
  const fake = fakeFetch(routes);
  const client = new MediaClient({ baseUrl: "https://api.example/v1/", apiKey: "sk_us_test_key", fetch: fake.fetch, ...options });
  const waits: number[] = [];
  client.transport.sleep = async (ms, signal) => {
    if (signal?.aborted) throw signal.reason;
    waits.push(ms);
  };
  client.transport.random = () => 1;
  return { client, seen: fake.seen, waits };
}

export function envelope(status: string, extra: Record<string, unknown> = {}) {
  return {
    object: "task",
    task_id: "task_1",
    status,
    capability: "text_to_image",
    model: "auto",
    resolved_model: "m",
    metadata: {},
    input: {},
    progress: { percent: status === "succeeded" ? 100 : 10, stage: status, message: "" },
    output: null,
    warnings: [],
    usage: {},
    billing: { charged_credits: "1", refunded_credits: "0", net_charged_credits: "1" },
    created_at: "2026-01-01T00:00:00Z",
    started_at: null,
    deadline_at: "2026-01-01T01:00:00Z",
    completed_at: null,
    cancel_requested_at: null,
    links: { self: "/v1/tasks/task_1", cancel: "/v1/tasks/task_1/cancel" },
    ...extra,
  };
}

/** Runs the CLI on a fake fetch with a key and base URL in its environment: its exit code, output and requests. */
export async function runCliOn(argv: string[], routes: Record<string, Handler | Handler[]>) {
  const fake = fakeFetch(routes);
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { MEDIA_API_KEY: "sk_us_test_key", MEDIA_API_BASE_URL: "https://api.example" },
    fetch: fake.fetch,
  });
  return { code, stdout, stderr, seen: fake.seen };
}
