/**
 * Requests a replay runs (`POST /v1/requests/{id}/replay`): the pipeline writes their log entry
 * with `replay_of`. Marked on the Request object itself, so that no header a client sends can
 * claim to be a replay.
 */
const marks = new WeakMap<Request, string>();

export function markReplay(request: Request, of: string): Request {
  marks.set(request, of);
  return request;
}

export function replayOf(request: Request): string | null {
  return marks.get(request) ?? null;
}

type Fetch = (request: Request, env: unknown, ctx: never) => Response | Promise<Response>;
let app: Fetch | null = null;

/** The app a replay runs its request through (set once by src/app.ts). */
export function setReplayApp(fetch: Fetch): void {
  app = fetch;
}

/** Runs `request` through the whole app, as the replay of `of`. */
export async function dispatch(request: Request, of: string, env: unknown, ctx: unknown): Promise<Response> {
  if (!app) throw new Error("the app is not set");
  return app(markReplay(request, of), env, ctx as never);
}
