import { type AuditEntry, type AuditInput, appendAudit, readAudit, writeAudited } from "../audit/audit-store";
import type { AccountContext } from "../tenancy/account-context";
import { readTenant, type TenantView, type TenantViewer } from "../tenancy/tenant-row";
import { activeOwners, insertMember, type MemberRecord, type MemberStatus, readMember, readMembers } from "./members-store";
import type { Role } from "./roles";

/**
 * Who belongs to the tenant and with which role (`members`), each change checked and written with
 * its audit entry in one step; a member who leaves takes their OAuth grants along. Also the
 * tenant's audit log (`audit_log`), which records what members do.
 */
/** The OAuth grants of a member who leaves are revoked in the same write (the grant store). */
export interface UserGrants {
  revokeUserGrants(userId: string, now: number): unknown;
}

export class MembershipStore {
  constructor(
    private readonly ctx: AccountContext,
    private readonly tenant: TenantViewer,
    private readonly oauth: UserGrants,
  ) {}

  /** A member and the tenant they belong to (null: not a member, or no tenant). */
  get(userId: string): { member: MemberRecord; tenant: TenantView } | null {
    const tenant = this.tenant.view();
    const member = tenant ? readMember(this.ctx.sql, userId) : null;
    return tenant && member ? { member, tenant } : null;
  }

  list(): MemberRecord[] {
    return readMembers(this.ctx.sql);
  }

  /** Adds someone not yet a member; `exists` when they already are (whatever their role). */
  add(
    m: { user_id: string; email: string; role: Role; status: MemberStatus; invited_by: string | null },
    audit?: AuditInput,
  ): { ok: true; member: MemberRecord } | { ok: false; code: "no_tenant" | "exists" } {
    const sql = this.ctx.sql;
    if (!readTenant(sql)) return { ok: false, code: "no_tenant" };
    if (readMember(sql, m.user_id)) return { ok: false, code: "exists" };
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => insertMember(sql, m, now));
    return { ok: true, member: readMember(sql, m.user_id) as MemberRecord };
  }

  /** An invited member signs in for the first time. */
  activate(userId: string): MemberRecord | null {
    const now = new Date().toISOString();
    this.ctx.sql.exec(
      "UPDATE members SET status = 'active', joined_at = ?, updated_at = ? WHERE user_id = ? AND status = 'invited'",
      now,
      now,
      userId,
    );
    return readMember(this.ctx.sql, userId);
  }

  /** A new role, or (role null) no membership; a tenant always keeps one active owner. */
  change(
    userId: string,
    role: Role | null,
    audit?: AuditInput,
  ): { ok: true; member: MemberRecord } | { ok: false; code: "not_found" | "last_owner" } {
    const sql = this.ctx.sql;
    const current = readMember(sql, userId);
    if (!current) return { ok: false, code: "not_found" };
    const losesOwner = current.role === "owner" && current.status === "active" && role !== "owner";
    if (losesOwner && activeOwners(sql) <= 1) return { ok: false, code: "last_owner" };
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => {
      if (role === null) {
        sql.exec("DELETE FROM members WHERE user_id = ?", userId);
        // Whoever leaves takes their connected apps with them.
        this.oauth.revokeUserGrants(userId, Date.now());
      } else sql.exec("UPDATE members SET role = ?, updated_at = ? WHERE user_id = ?", role, now, userId);
    });
    return { ok: true, member: role === null ? current : (readMember(sql, userId) as MemberRecord) };
  }

  /** Appends an audit entry written apart from the change it records (false: no tenant). */
  recordAudit(entry: AuditInput): boolean {
    if (!readTenant(this.ctx.sql)) return false;
    appendAudit(this.ctx.sql, entry);
    return true;
  }

  audit(q: { limit: number; before?: number }): { entries: AuditEntry[]; has_more: boolean } {
    return readAudit(this.ctx.sql, q);
  }
}
