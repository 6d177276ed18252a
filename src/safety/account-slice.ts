/**
 * What content review asks of the tenant's account object: the tenant's policy. The account object
 * implements it (src/accounts/account-rpc.ts); callers reach it with `accountSlice` (src/tenancy/account-slice.ts).
 */
import type { AuditInput } from "../audit/audit-store";
import type { SafetyPolicy } from "./policy";

export interface SafetyAccountSlice {
  safetyPolicy(): SafetyPolicy | null;
  setSafetyPolicy(policy: SafetyPolicy, audit?: AuditInput): SafetyPolicy | null;
}
