import type { Context } from "hono";
import { consoleApp } from "../console/app";
import { FAVICON_PATH, favicon } from "../console/favicon";
import { ApiError } from "../errors/api-error";
import { mcpRoutes } from "../mcp/endpoint";
import { oauthRoutes } from "../oauth/routes";
import { type AppEnv, newRouter } from "./context";
import { mountDocs } from "./docs";
import { errorHeaders, toApiError } from "./error-response";
import { boundedBody, jsonBody, MAX_BODY_BYTES } from "./json-body";
import { requestId } from "./request-id";
import { accountRoutes } from "./routes/account";
import { adminRoutes } from "./routes/admin";
import { adminPeopleRoutes } from "./routes/admin-people";
import { adminSafetyRoutes } from "./routes/admin-safety";
import { adminSettingsRoutes } from "./routes/admin-settings";
import { batchRoutes } from "./routes/batches";
import { catalogRoutes } from "./routes/catalog";
import { chatRoutes } from "./routes/chat";
import { fileRoutes } from "./routes/files";
import { keyRoutes } from "./routes/keys";
import { operationRoutes } from "./routes/operations";
import { paymentRoutes, paymentWebhookRoutes } from "./routes/payments";
import { providerKeyRoutes } from "./routes/provider-keys";
import { quoteRoutes } from "./routes/quotes";
import { statusRoutes } from "./routes/status";
import { storageDestinationRoutes } from "./routes/storage-destinations";
import { taskOutputRoutes } from "./routes/task-outputs";
import { taskRoutes } from "./routes/tasks";
import { uploadRoutes } from "./routes/uploads";
import { upstreamRoutes } from "./routes/upstream";
import { voicePreviewRoutes } from "./routes/voice-previews";
import { webhookRoutes } from "./routes/webhooks";
import { drainUnreadBody } from "./unread-body";

function respondWithError(c: Context<AppEnv>, error: ApiError) {
  return c.json({ error: error.toBody(c.get("requestId") ?? "unknown") }, error.status as 400, errorHeaders(error));
}

/** What every app of the Worker shares: the body and request-id middleware, and the error vocabulary. */
function withCommon(app: ReturnType<typeof newRouter>, routes: (app: ReturnType<typeof newRouter>) => void) {
  // First, so that any answer given before a body's end waits for the rest to be discarded.
  app.use("*", drainUnreadBody);
  app.use("*", requestId);
  app.use("/v1/*", jsonBody);
  app.use("/admin/*", jsonBody);
  routes(app);
  app.notFound((c) =>
    respondWithError(c, new ApiError("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`)),
  );
  app.onError((err, c) => respondWithError(c, toApiError(err, c.get("requestId"))));
  return app;
}

/** The whole HTTP surface: every route is declared once, with its schemas, under this app. */
export function createApp() {
  return withCommon(newRouter(), (app) => {
    // Every other body (webhooks, MCP, OAuth) is read under the same cap, once. The console reads its
    // forms itself, under each form's own cap, and refuses them as pages (src/console/form-body.ts).
    const otherBodies = boundedBody(MAX_BODY_BYTES);
    app.use("*", (c, next) => (/^\/(v1|admin|console)(\/|$)/.test(c.req.path) ? next() : otherBodies(c, next)));

    // Liveness for load balancers and the local start script; no auth, no storage.
    app.get("/healthz", (c) => c.json(health(c.env)));
    app.get(FAVICON_PATH, favicon);
    app.route("/", catalogRoutes);
    app.route("/", statusRoutes);
    app.route("/", adminRoutes);
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
    app.route("/console", consoleApp);
  });
}

/** The liveness answer (`GET /healthz`). */
export function health(env: { REGION: string }) {
  return { status: "ok", region: env.REGION };
}
