/**
 * Whose tasks a caller reaches. A key's mode is part of every task's scope and of the
 * idempotency namespace: a test key never reads, follows, waits on, cancels or replays a live
 * task, nor a live key a test one; across modes a task answers exactly as another tenant's does
 * (404 `task_not_found`). A console session acts for the tenant as a whole and sees both modes.
 */
import type { KeyMode } from "./api-keys";

export interface TaskScope {
  tenant_id: string;
  /** `both`: a console session (the tenant's people see every task of their tenant). */
  mode: KeyMode | "both";
}

/** The scope of an API key or an OAuth grant: its tenant, its mode. */
export function keyScope(caller: { tenant_id: string; mode: KeyMode }): TaskScope {
  return { tenant_id: caller.tenant_id, mode: caller.mode };
}

/** The scope of a console session: the tenant, both modes. */
export function tenantScope(tenantId: string): TaskScope {
  return { tenant_id: tenantId, mode: "both" };
}

/** Whether a task (or its output) of `owner` is within `scope`; records from before modes are live. */
export function inScope(owner: { tenant_id: string; mode?: KeyMode | undefined }, scope: TaskScope): boolean {
  return owner.tenant_id === scope.tenant_id && (scope.mode === "both" || (owner.mode ?? "live") === scope.mode);
}

/**
 * The task object's name for an Idempotency-Key. Live tasks keep the name they always had,
 * `<tenant_id>:<key>`, so every existing task id stays what it is; test-mode tasks are named
 * `test:<tenant_id>:<key>`, which no live name can be (a live name starts with the tenant id,
 * `ten_…`). The same key under the two modes therefore reaches two objects: two tasks.
 */
export function taskObjectName(tenantId: string, mode: KeyMode, idempotencyKey: string): string {
  return mode === "live" ? `${tenantId}:${idempotencyKey}` : `${mode}:${tenantId}:${idempotencyKey}`;
}
