/**
 * Console sessions at the door: `loadSession` turns the session cookie into `c.get("member")`
 * (and `c.get("session")`) on every console request; `requireMember` sends the signed-out to the
 * sign-in page and refuses everyone in a disabled tenant (403 `tenant_disabled`: a page saying
 * so, or for a JSON caller the API's error envelope); `requireRole(action)` refuses a member
 * whose role lacks the action (403 `forbidden`, the same two ways).
 */
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors/api-error";
import { type Action, can, resolveSession } from "../services/people";
import type { ConsoleEnv } from "./context";
import { readCookie } from "./cookies";

export const SESSION_COOKIE = "session";

export const loadSession: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const resolved = await resolveSession(c.env, readCookie(c, SESSION_COOKIE));
  if (resolved) {
    c.set("session", resolved);
    if (resolved.current) {
      c.set("member", {
        user_id: resolved.session.user_id,
        email: resolved.session.email,
        tenant_id: resolved.current.tenant_id,
        tenant_name: resolved.current.tenant_name,
        role: resolved.current.role,
        session_id: resolved.session.session_id,
        tenants: resolved.tenants,
      });
    }
  }
  await next();
};

/** Whether the caller wants JSON (a script's fetch) rather than a page. */
export function wantsJson(accept: string | undefined): boolean {
  return !!accept && accept.includes("application/json") && !accept.includes("text/html");
}

/** The signed-in member, or the sign-in page (a JSON caller gets 401 `unauthorized`). */
export const requireMember: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  if (c.get("member")) return next();
  const signedIn = c.get("session");
  // The session's tenant is disabled (src/people/sessions.ts): the page says so, with sign-out and the person's other tenants.
  if (signedIn?.disabled) throw tenantDisabled(signedIn.disabled.tenant_name);
  if (wantsJson(c.req.header("Accept"))) throw new ApiError("unauthorized", "Sign in to the console first.");
  // Signed in, but no tenant counts them in any more: a page that says so, with sign-out.
  if (signedIn) throw new NoTenant();
  return c.redirect("/console/sign-in", 303);
};

/** A signed-in person, member of a tenant or not (switching tenants works from the disabled-account page too). */
export const requireSignedIn: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  if (c.get("session")) return next();
  return requireMember(c, next);
};

/** The spec's error for a disabled tenant, as every door answers it. */
export function tenantDisabled(tenantName: string): ApiError {
  return new ApiError(
    "tenant_disabled",
    `The account ${tenantName} is disabled; no one can act in it until it is enabled again.`,
  );
}

export function requireRole(action: Action): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const member = c.get("member");
    if (!member) return requireMember(c, next);
    if (!can(member.role, action)) {
      throw new ApiError("forbidden", `Your role (${member.role}) does not allow this.`, {
        details: { required: action, role: member.role },
      });
    }
    await next();
  };
}

/** Thrown for a signed-in person who belongs to no tenant; the console's error handler shows the page. */
export class NoTenant extends Error {
  constructor() {
    super("no tenant");
  }
}
