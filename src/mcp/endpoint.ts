/**
 * `POST /mcp`: the Model Context Protocol over Streamable HTTP, for 2026-07-28 clients
 * (stateless, `server/discover`) and 2025-era clients (`initialize`, served statelessly) alike,
 * through the official SDK's `createMcpHandler` with one server per request.
 *
 * Before the SDK sees a request: the Origin check, authentication (API key or OAuth access
 * token) and the endpoint's scope check, each answered with the spec's error envelope. GET and
 * DELETE (2025 session streams and teardown) answer 405: nothing here is sessionful.
 *
 * Origin: the transport spec asks servers to refuse a browser Origin they do not accept (DNS
 * rebinding). Credentials here are bearer tokens only, never cookies, so a page elsewhere can act
 * only with a token it already holds; browser-based clients are therefore served (CORS) from any
 * https origin, and from loopback http where local URLs are allowed. Anything else ("null",
 * plain http, malformed) is refused with 403.
 */

import { Hono, type MiddlewareHandler } from "hono";
import { ApiError } from "../errors/api-error";
import { setHeaders } from "../http/auth";
import type { AppEnv } from "../http/context";
import { rateHeaders } from "../services/accounts";
import { requestFrom } from "../services/contracts/request-from";
import { oauthOrigin } from "../services/oauth";
import { authenticateMcp, requireEndpointScope } from "./auth";

const ALLOW_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "MCP-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
  "Last-Event-ID",
  "X-Request-Id",
].join(", ");
const EXPOSE_HEADERS = [
  "WWW-Authenticate",
  "X-Request-Id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
].join(", ");

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether a browser Origin may call /mcp (see the module comment). */
export function originAllowed(origin: string, allowLoopback: boolean): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.origin !== origin) return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && allowLoopback && LOOPBACK_HOSTS.has(url.hostname);
}

/** Refuses a foreign Origin; grants CORS to an accepted one, on every answer (errors included). */
const origins: MiddlewareHandler<AppEnv> = async (c, next) => {
  const origin = c.req.header("Origin");
  if (origin === undefined) return next();
  if (!originAllowed(origin, c.env.ALLOW_LOOPBACK_URLS === "true")) {
    throw new ApiError("forbidden", `Requests from the origin '${origin}' are not accepted on /mcp.`, {
      details: { origin },
    });
  }
  await next();
  setHeaders(c, { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSE_HEADERS, Vary: "Origin" });
};

function methodNotAllowed(): Response {
  // The transport's own answer to GET (no standalone stream) and DELETE (no session).
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: /mcp takes POST only." }, id: null },
    { status: 405, headers: { Allow: "POST, OPTIONS" } },
  );
}

export const mcpRoutes = new Hono<AppEnv>();

mcpRoutes.use("/mcp", origins);

mcpRoutes.options(
  "/mcp",
  () =>
    new Response(null, {
      status: 204,
      headers: {
        "Access-Control-Allow-Methods": "POST, OPTIONS",
        "Access-Control-Allow-Headers": ALLOW_HEADERS,
        "Access-Control-Max-Age": "86400",
      },
    }),
);

mcpRoutes.post("/mcp", async (c) => {
  const at = Date.now();
  const request = c.req.raw;
  const background = (p: Promise<unknown>) => c.executionCtx.waitUntil(p);
  const { caller, grant } = await authenticateMcp(c.env, request, background);
  requireEndpointScope(c.env, request, caller);
  c.set("caller", caller);
  const scope = {
    env: c.env,
    caller,
    requestId: c.get("requestId"),
    origin: oauthOrigin(c.env, request),
    from: requestFrom(request),
    at,
    userAgent: request.headers.get("User-Agent"),
    waitUntil: background,
    ...(grant ? { actor: { type: "user" as const, id: grant.user_id, email: grant.email } } : {}),
  };
  // The SDK is loaded on the first /mcp request: isolates that serve only /v1 never evaluate it.
  const { serveMcp } = await import("./serve");
  const response = await serveMcp(request, scope);
  if (!caller.rate) return response;
  const withRate = new Response(response.body, response);
  for (const [k, v] of Object.entries(rateHeaders(caller.rate))) withRate.headers.set(k, v);
  return withRate;
});

mcpRoutes.all("/mcp", () => methodNotAllowed());
