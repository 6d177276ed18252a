import { type Context, Hono } from "hono";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { consoleApp } from "./console/app";
import { FAVICON_PATH, favicon } from "./console/favicon";
import { ApiError } from "./errors/api-error";
import { type AppEnv, newRouter } from "./http/context";
import { errorHeaders, toApiError } from "./http/error-response";
import { boundedBody, MAX_BODY_BYTES } from "./http/json-body";
import { requestId, requestIdOf } from "./http/request-id";
import { drainRequest, drainUnreadBody } from "./http/unread-body";
import { mcpRoutes } from "./mcp/endpoint";
import { oauthRoutes } from "./oauth-door/routes";
import { declare } from "./rest/declare";
import { mountDocs } from "./rest/docs";
import { setReplayApp } from "./rest/replay-marks";
import { accountRoutes } from "./rest/routes/account";
import { adminRoutes } from "./rest/routes/admin";
import { adminKeyRoutes } from "./rest/routes/admin-keys";
import { adminPeopleRoutes } from "./rest/routes/admin-people";
import { adminSafetyRoutes } from "./rest/routes/admin-safety";
import { adminSettingsRoutes } from "./rest/routes/admin-settings";
import { batchRoutes } from "./rest/routes/batches";
import { catalogRoutes } from "./rest/routes/catalog";
import { chatRoutes } from "./rest/routes/chat";
import { fileRoutes } from "./rest/routes/files";
import { keyRoutes } from "./rest/routes/keys";
import { logExportRoutes } from "./rest/routes/log-exports";
import { operationRoutes } from "./rest/routes/operations";
import { paymentRoutes, paymentWebhookRoutes } from "./rest/routes/payments";
import { providerKeyRoutes } from "./rest/routes/provider-keys";
import { quoteRoutes } from "./rest/routes/quotes";
import { requestLogRoutes } from "./rest/routes/requests";
import { statusRoutes } from "./rest/routes/status";
import { storageDestinationRoutes } from "./rest/routes/storage-destinations";
import { taskOutputRoutes } from "./rest/routes/task-outputs";
import { taskRoutes } from "./rest/routes/tasks";
import { uploadRoutes } from "./rest/routes/uploads";
import { upstreamRoutes } from "./rest/routes/upstream";
import { voicePreviewRoutes } from "./rest/routes/voice-previews";
import { webhookRoutes } from "./rest/routes/webhooks";

function respondWithError(c: Context<AppEnv>, error: ApiError) {
  return c.json({ error: error.toBody(c.get("requestId") ?? "unknown") }, error.status as 400, errorHeaders(error));
}

/**
 * What is served outside the declared API and the console: MCP, OAuth, provider and payment
 * webhooks, signed input URLs, voice previews and the documentation. Only these go through the
 * middleware below; a declared route runs its own pipeline (src/rest/pipeline.ts), alone.
 */
const OTHER = [
  "/mcp",
  "/oauth/*",
  "/.well-known/*",
  "/webhooks/*",
  "/inputs/*",
  "/voices/*",
  "/docs",
  "/docs/*",
  "/openapi.json",
  FAVICON_PATH,
];

/** The whole HTTP surface: every API route is declared once, with its schemas (src/rest/declare.ts). */
export function createApp() {
  // One regular expression over every route of the API, built once per isolate. The console's
  // pages are a router of their own (below): their paths are not all of a shape this one takes.
  const app = newRouter(new RegExpRouter());
  const pages = new Hono<AppEnv>();
  pages.use("*", drainUnreadBody);
  pages.use("*", requestId);
  pages.route("/console", consoleApp);
  // Every other body (webhooks, MCP, OAuth) is read under the same cap, once. The console reads its
  // forms itself, under each form's own cap, and refuses them as pages (src/console/form-body.ts).
  const otherBodies = boundedBody(MAX_BODY_BYTES);
  for (const path of OTHER) {
    // First, so that any answer given before a body's end waits for the rest to be discarded.
    app.use(path, drainUnreadBody);
    app.use(path, requestId);
  }
  for (const path of OTHER) app.use(path, otherBodies);

  declare(
    app,
    {
      method: "get",
      path: "/healthz",
      hide: true,
      summary: "Liveness for load balancers and the local start script; no auth, no storage",
      responses: { 200: { description: "Alive" } },
    },
    (c) => Response.json(health(c.env)),
  );
  app.get(FAVICON_PATH, favicon);
  app.route("/", catalogRoutes);
  app.route("/", statusRoutes);
  app.route("/", adminRoutes);
  app.route("/", adminKeyRoutes);
  app.route("/", adminPeopleRoutes);
  app.route("/", adminSafetyRoutes);
  app.route("/", adminSettingsRoutes);
  app.route("/", operationRoutes);
  app.route("/", quoteRoutes);
  app.route("/", taskRoutes);
  app.route("/", taskOutputRoutes);
  app.route("/", batchRoutes);
  app.route("/", uploadRoutes);
  app.route("/", accountRoutes);
  app.route("/", keyRoutes);
  app.route("/", webhookRoutes);
  app.route("/", requestLogRoutes);
  app.route("/", logExportRoutes);
  app.route("/", providerKeyRoutes);
  app.route("/", storageDestinationRoutes);
  app.route("/", fileRoutes);
  app.route("/", chatRoutes);
  app.route("/", upstreamRoutes);
  app.route("/", voicePreviewRoutes);
  app.route("/", paymentRoutes);
  app.route("/", paymentWebhookRoutes);
  mountDocs(app);
  // The OAuth authorization server for MCP clients (src/oauth/): metadata, /oauth/*, in OAuth's wire format.
  app.route("/", oauthRoutes);
  // The MCP endpoint (src/mcp/): POST /mcp, tools over the same services as the routes above.
  app.route("/", mcpRoutes);
  // The tenant console: HTML pages with their own session, CSRF and error handling (src/console/).
  app.all("/console", (c) => pages.fetch(c.req.raw, c.env, c.executionCtx));
  app.all("/console/*", (c) => pages.fetch(c.req.raw, c.env, c.executionCtx));
  app.notFound(async (c) => {
    const id = c.get("requestId") ?? requestIdOf(c.req.header("X-Request-Id"));
    c.set("requestId", id);
    await drainRequest(c.req.raw);
    const path = new URL(c.req.url).pathname;
    const response = respondWithError(c, new ApiError("not_found", `No route for ${c.req.method} ${path}.`));
    response.headers.set("X-Request-Id", id);
    return response;
  });
  app.onError((err, c) => respondWithError(c, toApiError(err, c.get("requestId"))));
  setReplayApp((request, env, ctx) => app.fetch(request, env as never, ctx));
  return app;
}

/** The liveness answer (`GET /healthz`). */
export function health(env: { REGION: string }) {
  return { status: "ok", region: env.REGION };
}
