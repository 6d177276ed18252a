/**
 * A member's role in a tenant, and the one table of what each role may do. Console pages, the
 * services behind them and any other door ask `can(role, action)`; nothing else decides.
 */
export const ROLES = ["owner", "developer", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const ACTIONS = [
  "keys:manage",
  "signing_keys:manage",
  "webhooks:manage",
  "tasks:read",
  "tasks:write",
  "members:manage",
  "billing:manage",
  "audit:read",
  "usage:read",
  "settings:manage",
  "providers:manage",
  "storage:manage",
  "logs:read",
  "logs:manage",
] as const;
export type Action = (typeof ACTIONS)[number];

const GRANTS: Record<Role, ReadonlySet<Action>> = {
  // Everything, members and billing included.
  owner: new Set(ACTIONS),
  developer: new Set<Action>([
    "keys:manage",
    "signing_keys:manage",
    "webhooks:manage",
    "tasks:read",
    "tasks:write",
    "usage:read",
    "providers:manage",
    "storage:manage",
    "logs:read",
    "logs:manage",
  ]),
  // Read only.
  viewer: new Set<Action>(["tasks:read", "usage:read", "logs:read"]),
};

export function can(role: Role, action: Action): boolean {
  return GRANTS[role]?.has(action) ?? false;
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}
