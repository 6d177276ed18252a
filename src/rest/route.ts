/** What a declared route needs of a request, beside its OpenAPI description (src/rest/declare.ts). */
import type { RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../http/context";
import type { Permission } from "../services/accounts";

/** What a request must bring before the handler runs. */
export interface RouteNeeds {
  /** An API key holding this permission (null: any valid key); absent: no API key is asked for. */
  permission?: Permission | null;
  /** The operator token instead of an API key (the `/admin` API). */
  operator?: true;
  /** A valid `Idempotency-Key` header, checked after the key and before the body's schema. */
  idempotent?: true;
  /** The body is not JSON: the handler reads it itself, under its own caps. */
  rawBody?: true;
  /** The route's own refusals, after the key and before the schemas (e.g. a mode the route does not serve). */
  guard?: (c: Context<AppEnv>) => void;
  /** Served, but left out of the OpenAPI document. */
  hide?: true;
  /** Not written to the request log: the route runs another request that is (a replay). */
  unlogged?: true;
}

export type DeclaredRoute = RouteConfig & RouteNeeds;
