import { type AuditInput, appendAudit, writeAudited } from "../audit/audit-store";
import { activeOwnerMembers } from "../people/members-store";
import type { AccountContext } from "../tenancy/account-context";
import { readTenant } from "../tenancy/tenant-row";
import { mailOwnersKeyRejected } from "./mail";
import {
  deleteProviderKey,
  keyPlans,
  markProviderKeyInvalid,
  type ProviderKeyPlan,
  type ProviderKeyRecord,
  type ProviderKeyWrite,
  providerKeyRow,
  providerKeyRows,
  putProviderKey,
  sealedCredential,
  touchProviderKey,
  updateProviderKeyRouting,
} from "./rows";

/** The tenant's own provider keys (`provider_keys`): sealed by the service before they come here. */
export class ProviderKeyStore {
  constructor(private readonly ctx: AccountContext) {}

  /** Adds or replaces the tenant's key for a provider. */
  put(input: ProviderKeyWrite, audit?: AuditInput): ProviderKeyRecord | null {
    if (!readTenant(this.ctx.sql)) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => putProviderKey(this.ctx.sql, input, now));
    return providerKeyRow(this.ctx.sql, input.provider);
  }

  /** The mode, models and failover of a stored key, the key kept; null when there is none. */
  updateRouting(
    provider: string,
    change: Pick<ProviderKeyWrite, "mode" | "models" | "failover">,
    audit?: AuditInput,
  ): ProviderKeyRecord | null {
    if (!providerKeyRow(this.ctx.sql, provider)) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => updateProviderKeyRouting(this.ctx.sql, provider, change, now));
    return providerKeyRow(this.ctx.sql, provider);
  }

  list(): ProviderKeyRecord[] {
    return providerKeyRows(this.ctx.sql);
  }

  /** What admission orders a live task's routes by: the keys' modes, models and status, never their secrets. */
  plans(): ProviderKeyPlan[] {
    return keyPlans(this.ctx.sql);
  }

  delete(provider: string, audit?: AuditInput): ProviderKeyRecord | null {
    const key = providerKeyRow(this.ctx.sql, provider);
    if (!key) return null;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => deleteProviderKey(this.ctx.sql, provider));
    return key;
  }

  /** The sealed key a task of this tenant calls the provider with (its last use noted); null when gone or invalid. */
  credential(provider: string): { key_sealed: string; base_url: string | null } | null {
    const found = sealedCredential(this.ctx.sql, provider);
    if (found) touchProviderKey(this.ctx.sql, provider, Date.now());
    return found;
  }

  /** The provider refused the key on a task: invalid from now on, and the owners are mailed once. */
  rejected(provider: string, reason: string): void {
    const { sql, env } = this.ctx;
    const now = new Date().toISOString();
    let first = false;
    this.ctx.transaction(() => {
      first = markProviderKeyInvalid(sql, provider, reason, now);
      if (first) {
        appendAudit(
          sql,
          { actor: { type: "operator", id: "service" }, action: "provider_key.invalid", target: provider, details: { reason } },
          now,
        );
      }
    });
    if (!first) return;
    const owners = activeOwnerMembers(sql);
    const tenant = readTenant(sql);
    this.ctx.waitUntil(
      mailOwnersKeyRejected(env, owners, tenant?.name ?? "your tenant", provider, reason).catch((e) =>
        console.error(JSON.stringify({ level: "error", message: "provider key mail failed", provider, error: String(e) })),
      ),
    );
  }
}
