import type { Env } from "./env";
import { createApp, health } from "./http/app";
import { requestIdOf } from "./http/request-id";
import { CHAT_PATH, serveChat } from "./http/routes/chat";

export { AccountObject } from "./accounts/account-object";
export { DirectoryObject } from "./accounts/directory-object";
export { RateCounterObject } from "./accounts/rate-counter-object";
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

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
    // The two busiest answers are dispatched by their path alone: liveness probes and chat calls.
    const path = pathOf(request.url);
    if (path === "/healthz" && request.method === "GET" && !request.body) {
      return Response.json(health(env), { headers: { "X-Request-Id": requestIdOf(request.headers.get("X-Request-Id")) } });
    }
    if (path === CHAT_PATH && request.method === "POST") return serveChat(request, env, ctx);
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
