/**
 * What the request log asks of the tenant's account object: the tenant's log settings. The account
 * object implements it (src/accounts/account-rpc.ts); callers reach it with `accountSlice`.
 */
import type { AuditInput } from "../audit/audit-store";
import type { TenantView } from "../tenancy/tenant-row";

export interface RequestLogAccountSlice {
  setLogSettings(
    settings: { request_body_logging?: TenantView["request_body_logging"]; request_log_retention_days?: number },
    audit?: AuditInput,
  ): TenantView | null;
}
