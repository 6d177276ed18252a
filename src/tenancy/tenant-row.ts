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
  /** Whether the request log keeps bodies (src/request-log/bodies.ts). */
  request_body_logging: "off" | "redacted" | "full";
  /** Days the request log keeps entries (src/request-log/shards.ts). */
  request_log_retention_days: number;
}

/** What the request log needs of the tenant, as it travels with a key's resolution. */
export interface RequestLogSettings {
  body: TenantView["request_body_logging"];
  retention_days: number;
}

/** Days a tenant's request log is kept until the operator sets it. */
export const DEFAULT_LOG_RETENTION_DAYS = 30;

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
      request_body_logging: TenantView["request_body_logging"] | null;
      request_log_retention_days: number | null;
    }>(
      "SELECT tenant_id, name, status, created_at, rate_limit_per_minute, output_retention_days, request_body_logging, request_log_retention_days FROM tenant LIMIT 1",
    )
    .toArray()[0];
  return (
    row && {
      ...row,
      output_retention_days: tenantRetentionDays(row.output_retention_days),
      request_body_logging: row.request_body_logging ?? "off",
      request_log_retention_days: row.request_log_retention_days ?? DEFAULT_LOG_RETENTION_DAYS,
    }
  );
}

/** Tenant ids: `ten_` + 26 base32 characters. */
export function newTenantId(): string {
  return `ten_${randomToken(16)}`;
}
