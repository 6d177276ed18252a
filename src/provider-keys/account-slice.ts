/**
 * What the tenant's own provider keys ask of its account object. The account object
 * implements it (src/accounts/account-rpc.ts); callers reach it with `accountSlice` (src/tenancy/account-slice.ts).
 */
import type { AuditInput } from "../audit/audit-store";
import type { ProviderKeyPlan, ProviderKeyRecord, ProviderKeyWrite } from "./rows";

export interface ProviderKeysAccountSlice {
  putProviderKey(input: ProviderKeyWrite, audit?: AuditInput): ProviderKeyRecord | null;
  updateProviderKeyRouting(
    provider: string,
    change: Pick<ProviderKeyWrite, "mode" | "models" | "failover">,
    audit?: AuditInput,
  ): ProviderKeyRecord | null;
  providerKeys(): ProviderKeyRecord[];
  providerKeyPlans(): ProviderKeyPlan[];
  deleteProviderKey(provider: string, audit?: AuditInput): ProviderKeyRecord | null;
  providerCredential(provider: string): { key_sealed: string; base_url: string | null } | null;
  providerKeyRejected(provider: string, reason: string): void;
}
