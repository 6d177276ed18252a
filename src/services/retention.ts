/**
 * How long uploads and outputs are kept, and a tenant's setting for it: set by the operator
 * (`POST /admin/v1/tenants/{id}/settings`) and by owners in the console, audited as
 * `tenant.settings_set`. It travels with the tenant's key resolution, so every isolate applies a
 * change within the key cache's bound (5 s); this isolate at once.
 */
import { forgetCachedTenant } from "../accounts/service";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { tenantNotFound } from "../errors/not-found";
import { type Acting, auditFields, authorize } from "../people/principal";
import type { RetentionAccountSlice } from "../retention/account-slice";
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, RetentionDays } from "../retention/days";
import { tenantSlice } from "../tenancy/account-slice";
import type { TenantView } from "../tenancy/tenant-row";

export { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, RETENTION_DESCRIPTION, RetentionDays } from "../retention/days";
export { objectExpired } from "../retention/outputs";
export { storeRetainedUpload, uploadRetention } from "../retention/uploads";

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
  const tenant = await tenantSlice<RetentionAccountSlice>(env, tenantId).setRetention(days, {
    ...auditFields(acting),
    action: "tenant.settings_set",
    target: tenantId,
    details: { output_retention_days: days },
  });
  if (!tenant) throw tenantNotFound(tenantId);
  forgetCachedTenant(tenantId);
  return tenant;
}
