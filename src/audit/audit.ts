/**
 * Every console and operator action on a tenant is written here: who (a user, an API key, the
 * operator), what, on what, when, and from where. Rows live in the tenant's AccountObject
 * (`audit_log`); owners read them in the console (`audit:read`).
 */

import type { Env } from "../env";
import { accountSlice } from "../tenancy/account-slice";
import type { AuditAccountSlice } from "./account-slice";
import type { AuditEntry, AuditInput } from "./audit-store";

export type { AuditActor, AuditEntry, AuditInput } from "./audit-store";

export async function recordAudit(env: Env, tenantId: string, e: AuditInput): Promise<void> {
  await accountSlice<AuditAccountSlice>(env, tenantId).recordAudit(e);
}

/** Newest first, at most `limit` (1–200); `before` is the `id` of the last entry already shown. */
export async function listAudit(
  env: Env,
  tenantId: string,
  q: { limit: number; before?: number },
): Promise<{ entries: AuditEntry[]; has_more: boolean }> {
  const limit = Math.min(200, Math.max(1, Math.floor(q.limit)));
  return accountSlice<AuditAccountSlice>(env, tenantId).audit({ limit, ...(q.before !== undefined ? { before: q.before } : {}) });
}
