import { OpenAPIHono } from "@hono/zod-openapi";
import type { Router } from "hono/router";
import type { Handler, RouterRoute } from "hono/types";
import type { Caller } from "../accounts/service";
import type { Env } from "../env";
import type { RequestNote } from "../request-log/note";
import { validationError } from "./validation";

export type { Env } from "../env";
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    caller: Caller;
    /** What the request tells its log entry as it runs (src/request-log/note.ts). */
    note: RequestNote;
  };
}

/** Every router is made here so that schema failures always become the spec's 422 envelope. */
export function newRouter(router?: Router<[Handler, RouterRoute]>): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    ...(router ? { router } : {}),
    defaultHook: (result, c) => {
      if (!result.success) {
        const target = (result as { target?: string }).target;
        const part = target === "query" ? "query" : target === "param" ? "path" : target === "header" ? "header" : "body";
        throw validationError(part, result.error.issues, { route: c.req.routePath, input: (result as { data?: unknown }).data });
      }
      return undefined;
    },
  });
}
