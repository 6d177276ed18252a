import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import { ApiError } from "../errors/api-error";
import type { AppEnv } from "../http/context";
import { publicBaseUrl } from "../lib/public-url";

export const OPENAPI_INFO = {
  title: "Media Generation Task Service",
  version: "1.0.0",
  description:
    "One HTTP API in front of many generation models. Every media operation is an asynchronous task (202 with a task envelope, then polling or a signed callback). Errors share one envelope: `{error: {code, type, message, retryable, param?, details?, request_id}}`.",
};

/**
 * The viewer script, served by this region's docs Worker (src/docs-worker: static files copied from
 * the package at install), which the API hands `/docs/vendor/*`.
 */
export const DOCS_SCRIPT_PATH = "/docs/vendor/standalone.js";

/**
 * The reference page's configuration: this service's document and nothing of the renderer's own
 * hosted services. Each option below turns off a control that links to, or sends the document
 * to, the renderer's cloud (its hosted API client, registry, dashboard, AI agent, MCP generator).
 */
export const DOCS_CONFIG = {
  url: "/openapi.json",
  cdn: DOCS_SCRIPT_PATH,
  pageTitle: OPENAPI_INFO.title,
  withDefaultFonts: false,
  // "Open API Client" opens the document in the renderer's hosted client.
  hideClientButton: true,
  // The toolbar's Share / Deploy / Generate SDKs publish the document to the renderer's registry.
  showDeveloperTools: "never",
  // "Ask AI" sends the document to the renderer's agent service.
  agent: { disabled: true },
  // "Generate MCP" registers the document on the renderer's dashboard.
  mcp: { disabled: true },
  telemetry: false,
  // The sidebar's "Powered by" link has no option of its own.
  customCss: 'a[href^="https://www.scalar.com"] { display: none !important; }',
  // Kept: the in-page "Test Request" (it calls this deployment directly) and the document download.
} as const;

/** `GET /openapi.json` (OpenAPI 3.1, generated from the route declarations) and `GET /docs`. */
export function mountDocs(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "API key `sk_<region>_<secret>`",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "Operator token (ADMIN_TOKEN)",
  });
  app.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: OPENAPI_INFO,
    servers: [{ url: publicBaseUrl(c.env) || "/", description: `Region ${c.env.REGION}` }],
    tags: [
      { name: "Catalog", description: "Models, capabilities and their typed interface cards" },
      { name: "Voices", description: "The voice catalog for text-to-speech" },
      { name: "Operator", description: "Tenants, credits and keys (operator token)" },
    ],
  }));
  // `agent` is an option of the vendored renderer that the middleware's (older) types do not list.
  app.get("/docs", Scalar(DOCS_CONFIG as Parameters<typeof Scalar>[0]));
  app.get("/docs/vendor/*", async (c) => {
    let res: Response | null = null;
    try {
      if (c.env.DOCS) res = await c.env.DOCS.fetch(c.req.raw);
    } catch {
      // The docs Worker is not running here (a local server started without it).
    }
    if (res && res.status !== 404) return res;
    throw new ApiError("not_found", `${c.req.path} is not available on this server.`);
  });
}
