/**
 * A route of the API, declared once: its OpenAPI description (method, path, schemas, responses)
 * and what it needs of a request (who may call it, an Idempotency-Key, a JSON body). The same
 * declaration writes the route into the OpenAPI document and serves it (src/rest/pipeline.ts).
 */
import type { OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { pipelineFor } from "./pipeline";
import type { DeclaredRoute } from "./route";

export type { DeclaredRoute, RouteNeeds } from "./route";

/** Every declared route, in declaration order: what the per-route contract test walks over. */
export const DECLARED: DeclaredRoute[] = [];

/** Declares `route` on `router`: one entry in the document, one handler that runs the pipeline. */
export function declare<P extends string, R extends DeclaredRoute & { path: P }>(
  router: OpenAPIHono<AppEnv>,
  route: R,
  handler: RouteHandler<R, AppEnv>,
): void {
  const {
    permission: _p,
    operator: _o,
    idempotent: _i,
    rawBody: _r,
    guard: _g,
    unlogged: _u,
    hide,
    middleware: _m,
    ...documented
  } = route;
  if (!hide) router.openAPIRegistry.registerPath(documented as RouteConfig);
  DECLARED.push(route);
  // One handler per route: Hono answers a route with a single handler without composing a chain.
  router.on(route.method.toUpperCase(), honoPath(route.path), pipelineFor(route, handler as never));
}

/** `/v1/tasks/{task_id}` as the router writes it: `/v1/tasks/:task_id`. */
export function honoPath(path: string): string {
  return path.replaceAll(/\/{(.+?)}/g, "/:$1");
}
