/**
 * The tenant's retention setting, for the operator (`POST /admin/v1/tenants/{id}/settings`) and
 * for owners in the console: audited as `tenant.settings_set`. It travels with the tenant's key
 * resolution, so every isolate applies a change within the key cache's bound (5 s); this isolate
 * at once.
 */

import { accountFor, tenantAccount } from "../accounts/account-stub";
import type { Caller } from "../accounts/service";
import { forgetCachedTenant } from "../accounts/service";
import type { TenantView } from "../accounts/tenant-row";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { tenantNotFound } from "../errors/not-found";
import { type Acting, auditFields, authorize } from "../people/principal";
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, RetentionDays, tenantRetentionDays } from "./days";
export interface TenantSettingsInput {
  /** Checked here (1–365, an integer), whichever door it came through. */
  output_retention_days: unknown;
}

export async function setTenantSettings(
  env: Env,
  tenantId: string,
  input: TenantSettingsInput,
  acting: Acting,
): Promise<TenantView> {
  authorize(acting.principal, tenantId, "settings:manage");
  const parsed = RetentionDays.safeParse(input.output_retention_days);
  if (!parsed.success) {
    const reason = `must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}`;
    throw new ApiError("invalid_request", `output_retention_days ${reason}.`, {
      param: "/output_retention_days",
      details: { errors: [{ loc: ["body", "output_retention_days"], reason }] },
    });
  }
  const days = parsed.data;
  const tenant = await tenantAccount(env, tenantId).setRetention(days, {
    ...auditFields(acting),
    action: "tenant.settings_set",
    target: tenantId,
    details: { output_retention_days: days },
  });
  if (!tenant) throw tenantNotFound(tenantId);
  forgetCachedTenant(tenantId);
  return tenant;
}

/** The tenant's retention for a create: cached with the caller's key, else read from its account. */
export async function callerRetentionDays(
  env: Env,
  caller: Pick<Caller, "tenant_id" | "output_retention_days">,
): Promise<number> {
  if (caller.output_retention_days !== undefined) return caller.output_retention_days;
  return tenantRetentionDays((await accountFor(env, caller.tenant_id).get())?.output_retention_days);
}

/**
 * The days a create keeps its outputs: the request's, which may not exceed the tenant's, or the
 * tenant's. Above it: `422 invalid_request` at `/output_retention_days`.
 */
export function requestRetentionDays(asked: number | undefined, tenantDays: number): number {
  if (asked === undefined) return tenantDays;
  if (asked > tenantDays) {
    const reason = `at most the tenant's retention of ${tenantDays} days`;
    throw new ApiError("invalid_request", `output_retention_days is ${asked}; it may be ${reason}.`, {
      param: "/output_retention_days",
      details: { max_days: tenantDays, errors: [{ loc: ["body", "output_retention_days"], reason }] },
    });
  }
  return asked;
}
