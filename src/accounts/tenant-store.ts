import { type AuditInput, appendAudit, writeAudited } from "../audit/audit-store";
import { dec } from "../lib/decimal";
import { insertMember } from "../people/members-store";
import type { SafetyPolicy } from "../safety/policy";
import { readSafetyPolicy, writeSafetyPolicy } from "../safety/policy-store";
import type { AccountContext } from "../tenancy/account-context";
import { readTenant, type TenantStatus, type TenantView } from "../tenancy/tenant-row";
import type { LedgerStore } from "./ledger-store";

/** The `tenant` row: its creation, status and settings (rate limit, retention, content review policy). */
export class TenantStore {
  constructor(
    private readonly ctx: AccountContext,
    private readonly ledger: LedgerStore,
  ) {}

  view(): TenantView | null {
    const t = readTenant(this.ctx.sql);
    return t ? { ...t, balance: this.ledger.balance() } : null;
  }

  /** Creates the tenant (once) with an optional opening grant and its first owner, in one write. */
  create(input: {
    tenant_id: string;
    name: string;
    credits?: string;
    source?: string;
    owner?: { user_id: string; email: string };
    audit?: AuditInput;
  }): TenantView {
    const existing = this.view();
    if (existing) return existing;
    const sql = this.ctx.sql;
    const now = new Date().toISOString();
    this.ctx.transaction(() => {
      sql.exec(
        "INSERT INTO tenant (tenant_id, name, status, created_at, updated_at) VALUES (?, ?, 'active', ?, ?)",
        input.tenant_id,
        input.name,
        now,
        now,
      );
      if (input.credits && dec(input.credits).gt(0))
        this.ledger.insertGrant(input.credits, input.source ?? "opening_balance", now);
      // The operator vouches for the first owner: active at once.
      if (input.owner) insertMember(sql, { ...input.owner, role: "owner", status: "active", invited_by: null }, now);
      if (input.audit) appendAudit(sql, input.audit, now);
    });
    return this.view() as TenantView;
  }

  setStatus(status: TenantStatus): TenantView | null {
    if (!readTenant(this.ctx.sql)) return null;
    this.ctx.sql.exec("UPDATE tenant SET status = ?, updated_at = ?", status, new Date().toISOString());
    return this.view();
  }

  setRateLimit(perMinute: number | null): TenantView | null {
    if (!readTenant(this.ctx.sql)) return null;
    this.ctx.sql.exec("UPDATE tenant SET rate_limit_per_minute = ?, updated_at = ?", perMinute, new Date().toISOString());
    return this.view();
  }

  /** Sets how many days the tenant's outputs and uploads are kept, with its audit entry, in one write. */
  setRetention(days: number, audit?: AuditInput): TenantView | null {
    if (!readTenant(this.ctx.sql)) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () =>
      this.ctx.sql.exec("UPDATE tenant SET output_retention_days = ?, updated_at = ?", days, now),
    );
    return this.view();
  }

  /** Sets the request log's settings (those given), with its audit entry, in one write. */
  setLogSettings(
    settings: { request_body_logging?: TenantView["request_body_logging"]; request_log_retention_days?: number },
    audit?: AuditInput,
  ): TenantView | null {
    if (!readTenant(this.ctx.sql)) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => {
      if (settings.request_body_logging !== undefined)
        this.ctx.sql.exec("UPDATE tenant SET request_body_logging = ?, updated_at = ?", settings.request_body_logging, now);
      if (settings.request_log_retention_days !== undefined)
        this.ctx.sql.exec(
          "UPDATE tenant SET request_log_retention_days = ?, updated_at = ?",
          settings.request_log_retention_days,
          now,
        );
    });
    return this.view();
  }

  /** The tenant's content review policy (the default when the operator set none); null without a tenant. */
  safetyPolicy(): SafetyPolicy | null {
    return readTenant(this.ctx.sql) ? readSafetyPolicy(this.ctx.sql) : null;
  }

  /** Replaces the tenant's content review policy, with its audit entry, in one write. */
  setSafetyPolicy(policy: SafetyPolicy, audit?: AuditInput): SafetyPolicy | null {
    if (!readTenant(this.ctx.sql)) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => writeSafetyPolicy(this.ctx.sql, policy, now));
    return readSafetyPolicy(this.ctx.sql);
  }
}
