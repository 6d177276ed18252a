import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { consoleApp } from "../console/app";
import { FAVICON_PATH, favicon } from "../console/favicon";
import { ApiError } from "../errors/api-error";
import { mcpRoutes } from "../mcp/endpoint";
import { oauthRoutes } from "../oauth/routes";
import { type AppEnv, newRouter } from "./context";
import { mountDocs } from "./docs";
import { boundedBody, jsonBody, MAX_BODY_BYTES } from "./json-body";
import { requestId } from "./request-id";
import { accountRoutes } from "./routes/account";
import { adminRoutes } from "./routes/admin";
import { adminPeopleRoutes } from "./routes/admin-people";
import { adminSafetyRoutes } from "./routes/admin-safety";
import { catalogRoutes } from "./routes/catalog";
import { chatRoutes } from "./routes/chat";
import { fileRoutes } from "./routes/files";
import { keyRoutes } from "./routes/keys";
import { operationRoutes } from "./routes/operations";
import { paymentRoutes, paymentWebhookRoutes } from "./routes/payments";
import { taskRoutes } from "./routes/tasks";
import { uploadRoutes } from "./routes/uploads";
import { upstreamRoutes } from "./routes/upstream";
import { voicePreviewRoutes } from "./routes/voice-previews";
import { drainUnreadBody } from "./unread-body";

function respondWithError(c: Context<AppEnv>, error: ApiError) {
  const headers: Record<string, string> = { ...(error.headers ?? {}) };
  if (error.retryAfter !== undefined) headers["Retry-After"] = String(Math.ceil(error.retryAfter));
  return c.json({ error: error.toBody(c.get("requestId") ?? "unknown") }, error.status as 400, headers);
}

/** Framework refusals (content type, malformed body) in the spec's vocabulary. */
function fromHttpException(err: HTTPException): ApiError {
  if (err.status === 404) return new ApiError("not_found", err.message || "Not found.");
  const reason = err.status === 415 ? "the content type does not match what this route accepts (application/json)" : err.message;
  return new ApiError("invalid_request", `The request was refused: ${reason}.`, {
    details: { errors: [{ loc: err.status === 415 ? ["header", "content-type"] : ["body"], reason }] },
  });
}

/** The whole HTTP surface: every route is declared once, with its schemas, under this app. */
export function createApp() {
  const app = newRouter();
  // First, so that any answer given before a body's end waits for the rest to be discarded.
  app.use("*", drainUnreadBody);
  app.use("*", requestId);
  app.use("/v1/*", jsonBody);
  app.use("/admin/*", jsonBody);
  // Every other body (webhooks, MCP, OAuth) is read under the same cap, once. The console reads its
  // forms itself, under each form's own cap, and refuses them as pages (src/console/form-body.ts).
  const otherBodies = boundedBody(MAX_BODY_BYTES);
  app.use("*", (c, next) => (/^\/(v1|admin|console)(\/|$)/.test(c.req.path) ? next() : otherBodies(c, next)));

  // Liveness for load balancers and the local start script; no auth, no storage.
  app.get("/healthz", (c) => c.json({ status: "ok", region: c.env.REGION }));
  app.get(FAVICON_PATH, favicon);
  app.route("/", catalogRoutes);
  app.route("/", adminRoutes);
  app.route("/", adminPeopleRoutes);
  app.route("/", adminSafetyRoutes);
  app.route("/", operationRoutes);
  app.route("/", taskRoutes);
  app.route("/", uploadRoutes);
  app.route("/", accountRoutes);
  app.route("/", keyRoutes);
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

  app.notFound((c) =>
    respondWithError(c, new ApiError("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`)),
  );
  app.onError((err, c) => {
    if (err instanceof ApiError) return respondWithError(c, err);
    if (err instanceof HTTPException && err.status < 500) return respondWithError(c, fromHttpException(err));
    console.error(
      JSON.stringify({ level: "error", request_id: c.get("requestId"), message: String(err), stack: (err as Error)?.stack }),
    );
    return respondWithError(c, new ApiError("internal_error", "An unexpected error occurred; retry with the same request."));
  });
  return app;
}
