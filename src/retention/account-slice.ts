/**
 * What retention asks of the tenant's account object: the tenant's setting, and the uploads whose end it sweeps. The account object
 * implements it (src/accounts/account-rpc.ts); callers reach it with `accountSlice` (src/tenancy/account-slice.ts).
 */
import type { AuditInput } from "../audit/audit-store";
import type { TenantView } from "../tenancy/tenant-row";

export interface RetentionAccountSlice {
  setRetention(days: number, audit?: AuditInput): TenantView | null;
  noteUploadExpiry(artifactId: string, expiresAtMs: number): void;
}
