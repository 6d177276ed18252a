import type { MiddlewareHandler } from "hono";
import { newRequestId } from "../lib/request-ids";
import { setHeaders } from "./auth";
import type { AppEnv } from "./context";

/** Visible ASCII, up to 128 characters; anything else is replaced by an id of our own. */
const ACCEPTABLE = /^[\x21-\x7e]{1,128}$/;

/** The caller's X-Request-Id when acceptable, else a new one (its time tells the request log's hour). */
export function requestIdOf(given: string | null | undefined): string {
  return given && ACCEPTABLE.test(given) ? given : newRequestId();
}

export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const id = requestIdOf(c.req.header("X-Request-Id"));
  c.set("requestId", id);
  await next();
  setHeaders(c, { "X-Request-Id": id });
};
