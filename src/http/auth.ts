import type { Context } from "hono";
import type { Caller } from "../accounts/service";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { Permission } from "../keys/api-keys";
import { timingSafeEqualStrings } from "../lib/crypto";
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

/** How to get a key that holds `permission`: what the 403 tells a caller who lacks it. */
export function permissionHint(permission: Permission): string {
  return `Create a key that holds it: in the console (API keys → Create a key, tick '${permission}'), or with POST /v1/keys {"permissions": ["${permission}", …]} from a key holding 'keys:manage'; an owner of the tenant can do either.`;
}

/** 403 unless the caller's key holds `permission` (null: any valid key); the answer says how to get one. */
export function requirePermission(caller: Caller, permission: Permission | null): void {
  if (permission !== null && !caller.permissions.includes(permission)) {
    const hint = permissionHint(permission);
    throw new ApiError("forbidden", `This API key lacks the '${permission}' permission. ${hint}`, {
      details: { required_permission: permission, permission, hint },
    });
  }
}

/** The operator API: `Authorization: Bearer <ADMIN_TOKEN>`. */
export function requireOperator(env: Pick<Env, "ADMIN_TOKEN">, authorization: string | null): void {
  const expected = env.ADMIN_TOKEN;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization ?? "");
  if (!match) throw new ApiError("unauthorized", "Send `Authorization: Bearer <ADMIN_TOKEN>`.");
  if (!expected || expected.length < 16 || !timingSafeEqualStrings(match[1] as string, expected)) {
    throw new ApiError("invalid_api_key", "The operator token is not valid.");
  }
}
