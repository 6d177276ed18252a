/**
 * Who is acting on a tenant, resolved once by the door the request came through (a console
 * session, the operator token), and handed to the services, which check `can` and write the
 * audit entry from it. The services never look at cookies or headers.
 */
import type { AuditActor } from "../audit/audit-store";
import { ApiError } from "../errors/api-error";
import { type Action, can, type Role } from "./roles";

export type Principal = { kind: "session"; tenant_id: string; user_id: string; email: string; role: Role } | { kind: "operator" };

/** A principal, and where the request came from (for the audit log). */
export interface Acting {
  principal: Principal;
  ip?: string | null;
  user_agent?: string | null;
}

/** `403 forbidden` unless the principal may do `action` in `tenantId`. */
export function authorize(principal: Principal, tenantId: string, action: Action): void {
  if (principal.kind === "operator") return;
  if (principal.tenant_id !== tenantId || !can(principal.role, action)) {
    throw new ApiError("forbidden", `Your role (${principal.role}) does not allow this (${action}).`, {
      details: { required: action, role: principal.role },
    });
  }
}

export function auditActor(principal: Principal): AuditActor {
  return principal.kind === "operator"
    ? { type: "operator", id: "operator" }
    : { type: "user", id: principal.user_id, email: principal.email };
}

export function auditFields(acting: Acting) {
  return { actor: auditActor(acting.principal), ip: acting.ip ?? null, user_agent: acting.user_agent ?? null };
}
