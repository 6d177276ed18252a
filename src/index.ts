import type { Env } from "./env";
import { createApp, health } from "./http/app";
import { requestIdOf } from "./http/request-id";
import { CHAT_PATH, serveChat } from "./http/routes/chat";
import { OPERATION_PATHS, serveCreate } from "./http/routes/operations";
import { serveTaskRead } from "./http/routes/tasks";

export { AccountObject } from "./accounts/account-object";
export { DirectoryObject } from "./accounts/directory-object";
export { RateCounterObject } from "./accounts/rate-counter-object";
export { BatchObject } from "./batches/batch-object";
export { HealthObject } from "./health/health-object";
export { OutboxObject } from "./mail/outbox";
export { OAuthObject } from "./oauth/oauth-object";
export { UserObject } from "./people/user-object";
export { TaskObject } from "./tasks/task-object";

const app = createApp();

/** The path of a request URL, without parsing the rest of it. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.indexOf("?", start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

const TASK_PREFIX = "/v1/tasks/";

/** The task id of `GET /v1/tasks/{task_id}` (plain characters only: anything encoded goes through the router). */
function taskIdOf(path: string): string | null {
  if (!path.startsWith(TASK_PREFIX) || path.length === TASK_PREFIX.length) return null;
  const id = path.slice(TASK_PREFIX.length);
  return /^[A-Za-z0-9_-]+$/.test(id) ? id : null;
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
    // The busiest answers are dispatched by their path alone: liveness probes, chat calls, task
    // creates and reads.
    const path = pathOf(request.url);
    if (path === "/healthz" && request.method === "GET" && !request.body) {
      return Response.json(health(env), { headers: { "X-Request-Id": requestIdOf(request.headers.get("X-Request-Id")) } });
    }
    if (request.method === "POST") {
      if (path === CHAT_PATH) return serveChat(request, env, ctx);
      const operation = OPERATION_PATHS.get(path);
      if (operation) return serveCreate(request, env, ctx, operation);
    }
    const taskId = request.method === "GET" ? taskIdOf(path) : null;
    if (taskId) return serveTaskRead(request, env, ctx, taskId);
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
