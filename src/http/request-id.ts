import type { MiddlewareHandler } from "hono";
import { newId } from "../lib/ids";
import { setHeaders } from "./auth";
import type { AppEnv } from "./context";

/** Visible ASCII, up to 128 characters; anything else is replaced by an id of our own. */
const ACCEPTABLE = /^[\x21-\x7e]{1,128}$/;

export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header("X-Request-Id");
  const id = given && ACCEPTABLE.test(given) ? given : newId("req");
  c.set("requestId", id);
  await next();
  setHeaders(c, { "X-Request-Id": id });
};
