import { randomToken } from "../lib/ids";

/** Days a tenant keeps its outputs and uploads until it sets its own (src/retention). */
export const DEFAULT_RETENTION_DAYS = 30;

/** The tenant's stored value (null: never set) as it applies. */
export function tenantRetentionDays(stored: number | null | undefined): number {
  return stored ?? DEFAULT_RETENTION_DAYS;
}

export type TenantStatus = "active" | "disabled";

export interface TenantView {
  tenant_id: string;
  name: string;
  status: TenantStatus;
  balance: string;
  created_at: string;
  /** Requests per minute per API key; null follows the deployment's default. */
  rate_limit_per_minute: number | null;
  /** Days outputs and uploads are kept: the default and the most a request may ask (src/retention/days.ts). */
  output_retention_days: number;
}

/** What reads the tenant with its balance (the tenant store); other stores take it by this. */
export interface TenantViewer {
  view(): TenantView | null;
}

export type TenantRow = Omit<TenantView, "balance">;

/** The tenant's one row (undefined before `create`), its retention resolved to days. */
export function readTenant(sql: SqlStorage): TenantRow | undefined {
  const row = sql
    .exec<{
      tenant_id: string;
      name: string;
      status: TenantStatus;
      created_at: string;
      rate_limit_per_minute: number | null;
      output_retention_days: number | null;
    }>("SELECT tenant_id, name, status, created_at, rate_limit_per_minute, output_retention_days FROM tenant LIMIT 1")
    .toArray()[0];
  return row && { ...row, output_retention_days: tenantRetentionDays(row.output_retention_days) };
}

/** Tenant ids: `ten_` + 26 base32 characters. */
export function newTenantId(): string {
  return `ten_${randomToken(16)}`;
}
