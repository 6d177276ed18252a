/**
 * What members and sign-in ask of the tenant's account object: its members and their roles. The account object
 * implements it (src/accounts/account-rpc.ts); callers reach it with `accountSlice` (src/tenancy/account-slice.ts).
 */
import type { AuditInput } from "../audit/audit-store";
import type { TenantView } from "../tenancy/tenant-row";
import type { MemberRecord, MemberStatus } from "./members-store";
import type { Role } from "./roles";

export interface MembersAccountSlice {
  member(userId: string): { member: MemberRecord; tenant: TenantView } | null;
  members(): MemberRecord[];
  addMember(
    m: { user_id: string; email: string; role: Role; status: MemberStatus; invited_by: string | null },
    audit?: AuditInput,
  ): { ok: true; member: MemberRecord } | { ok: false; code: "no_tenant" | "exists" };
  activateMember(userId: string): MemberRecord | null;
  changeMember(
    userId: string,
    role: Role | null,
    audit?: AuditInput,
  ): { ok: true; member: MemberRecord } | { ok: false; code: "not_found" | "last_owner" };
}
