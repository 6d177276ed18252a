import { type AuditInput, appendAudit } from "../audit/audit-store";
import type { Env } from "../env";
import { type MemberRecord, readMembers } from "../people/members-store";

/**
 * What the stores of one AccountObject share: its SQLite storage, its bindings, and the object's
 * own means to write atomically, to wake its alarm, and to keep work alive after an answer.
 */
export interface AccountContext {
  readonly sql: SqlStorage;
  readonly env: Env;
  /** One synchronous transaction of the object's storage. */
  transaction<T>(fn: () => T): T;
  /** Sets the alarm for `atMs` unless it is already set earlier. */
  wakeAt(atMs: number): void;
  waitUntil(p: Promise<unknown>): void;
}

/** Runs `write` and appends `audit` (if any) at `now`, in one transaction. */
export function writeAudited<T>(ctx: AccountContext, audit: AuditInput | undefined, now: string, write: () => T): T {
  return ctx.transaction(() => {
    const out = write();
    if (audit) appendAudit(ctx.sql, audit, now);
    return out;
  });
}

/** Whom the service mails about the tenant: its active owners. */
export function activeOwnerMembers(sql: SqlStorage): MemberRecord[] {
  return readMembers(sql).filter((m) => m.role === "owner" && m.status === "active");
}

/** The arguments of a store method, so that a delegation on the object cannot drift from it. */
export type Args<F> = F extends (...args: infer A) => unknown ? A : never;
