/** Who made a change, and what the audit log says of it. */
import type { AuditInput } from "./audit-store";

/**
 * Who made a change, and from where: the audit log's actor, IP and user agent. Services that
 * change keys record it in the same write as the change.
 */
export type AuditBy = Pick<AuditInput, "actor" | "ip" | "user_agent">;

/** What `created_by` shows: the member's email, `operator`, or `api_key:<key_id>`. */
export function createdBy(by: AuditBy): string {
  return by.actor.type === "operator" ? "operator" : (by.actor.email ?? `${by.actor.type}:${by.actor.id}`);
}

export function audited(by: AuditBy, action: string, target: string, details?: Record<string, unknown>): AuditInput {
  return { ...by, action, target, ...(details ? { details } : {}) };
}
