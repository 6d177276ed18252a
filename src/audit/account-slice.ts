/**
 * What the audit log asks of the tenant's account object: append an entry, read a page. The account object
 * implements it (src/accounts/account-rpc.ts); callers reach it with `accountSlice` (src/tenancy/account-slice.ts).
 */
import type { AuditEntry, AuditInput } from "./audit-store";

export interface AuditAccountSlice {
  recordAudit(entry: AuditInput): boolean;
  audit(q: { limit: number; before?: number }): { entries: AuditEntry[]; has_more: boolean };
}
