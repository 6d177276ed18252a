import type { Context, MiddlewareHandler } from "hono";
import type { Permission } from "../accounts/api-keys";
import { authenticate, type Caller, rateHeaders } from "../accounts/service";
import { ApiError } from "../errors/api-error";
import { timingSafeEqualStrings } from "../lib/crypto";
import { requireIdempotencyKey } from "../tasks/idempotency";
import type { AppEnv } from "./context";

/** Adds headers to the response, copying it first when its headers are immutable (a proxied one). */
export function setHeaders(c: Context<AppEnv>, headers: Record<string, string>) {
  try {
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  } catch {
    c.res = new Response(c.res.body, c.res);
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  }
}

/**
 * API-key authentication plus the permission the route needs (null: any valid key, whatever its
 * permissions, e.g. to read its own balance). Runs before any validation.
 */
export function requireKey(permission: Permission | null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await authenticate(c.env, c.req.header("Authorization"), (p) => c.executionCtx.waitUntil(p));
    requirePermission(caller, permission);
    c.set("caller", caller);
    await next();
    if (caller.rate) setHeaders(c, rateHeaders(caller.rate));
  };
}

/** 403 unless the caller's key holds `permission` (null: any valid key). */
export function requirePermission(caller: Caller, permission: Permission | null): void {
  if (permission !== null && !caller.permissions.includes(permission)) {
    throw new ApiError("forbidden", `This API key lacks the '${permission}' permission.`, {
      details: { required_permission: permission },
    });
  }
}

/** Task-creating routes: the Idempotency-Key header is checked before the body. */
export const requireIdempotencyHeader: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireIdempotencyKey(c.req.header("Idempotency-Key"));
  await next();
};

/** The operator API: `Authorization: Bearer <ADMIN_TOKEN>`. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(c.req.header("Authorization") ?? "");
  if (!match) throw new ApiError("unauthorized", "Send `Authorization: Bearer <ADMIN_TOKEN>`.");
  if (!expected || expected.length < 16 || !timingSafeEqualStrings(match[1] as string, expected)) {
    throw new ApiError("invalid_api_key", "The operator token is not valid.");
  }
  await next();
};
