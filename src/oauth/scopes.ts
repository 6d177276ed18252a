/**
 * OAuth scopes are API key permissions: the work ones (catalog:read, tasks:read, tasks:write,
 * chat) and logs:read, which the MCP tools list_requests and get_request need and which every
 * role may already read in the console. Managing anything (keys, webhooks, exports…) stays with
 * keys and the console. What a grant may do is always narrowed to what the member's current role
 * allows, so a demoted member's tokens lose scopes at once, without a new consent.
 */
import { type Permission, WORK_PERMISSIONS } from "../keys/api-keys";
import { can, type Role } from "../people/roles";

export const OAUTH_SCOPES: readonly Permission[] = [...WORK_PERMISSIONS, "logs:read"];

/** What a request naming no scope is granted: the work scopes; the log is read only when asked for by name. */
export const DEFAULT_SCOPES: readonly Permission[] = WORK_PERMISSIONS;

/** What a member of `role` may hand to a client: catalog:read for all; the others as the role says (chat as tasks:write). */
export function roleScopes(role: Role): Permission[] {
  return OAUTH_SCOPES.filter((s) => {
    if (s === "catalog:read") return true;
    if (s === "tasks:read" || s === "logs:read") return can(role, s);
    return can(role, "tasks:write");
  });
}

/** The refusal of a `scope` naming something else (invalid_scope). */
export const UNKNOWN_SCOPE = `scope names an unknown scope (known: ${OAUTH_SCOPES.join(" ")}).`;

/** The scopes both in `scopes` and allowed to `role`, in the canonical order. */
export function narrowScopes(scopes: readonly Permission[], role: Role): Permission[] {
  const allowed = new Set(roleScopes(role));
  return OAUTH_SCOPES.filter((s) => scopes.includes(s) && allowed.has(s));
}

/**
 * A `scope` parameter (space-separated, RFC 6749 §3.3) as known scopes in canonical order;
 * undefined or blank: `fallback`; null when any scope is unknown (invalid_scope).
 */
export function parseScope(
  value: string | null | undefined,
  fallback: readonly Permission[] = DEFAULT_SCOPES,
): Permission[] | null {
  const parts = (value ?? "").split(" ").filter((s) => s !== "");
  if (parts.length === 0) return [...fallback];
  if (!parts.every((p) => (OAUTH_SCOPES as readonly string[]).includes(p))) return null;
  return OAUTH_SCOPES.filter((s) => parts.includes(s));
}

export function formatScope(scopes: readonly Permission[]): string {
  return scopes.join(" ");
}

/** Stored scope strings back to the list; unknown words (none are written) are dropped. */
export function storedScopes(value: string | null): Permission[] {
  return parseScope(value ?? "", []) ?? [];
}

/** Plain words for the consent and device pages. */
export const SCOPE_LABELS: Record<Permission, string> = {
  "catalog:read": "Read the model catalog and voices",
  "tasks:read": "Read the tenant's tasks and their outputs",
  "tasks:write": "Create and cancel tasks (spends the tenant's credits)",
  chat: "Use chat models (spends the tenant's credits)",
  "logs:read": "Read the tenant's request log: every call, its provider attempts and what it cost",
  // Never OAuth scopes (OAUTH_SCOPES leaves them out); named for completeness.
  "keys:manage": "Manage the tenant's API keys",
  "webhooks:manage": "Manage the tenant's webhook endpoints and their deliveries",
  "providers:manage": "Manage the tenant's own provider keys",
  "storage:manage": "Manage the tenant's storage destinations (its own buckets)",
  "logs:manage": "Manage the tenant's request log exports (OpenTelemetry, its own buckets)",
};
