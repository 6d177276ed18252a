/**
 * The days a create keeps its outputs: the tenant's setting (as cached with the caller's key, else
 * read from its account) and what the request asks within it.
 */

import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { accountSlice, type TenantReadSlice } from "../tenancy/account-slice";
import { tenantRetentionDays } from "../tenancy/tenant-row";

/** The tenant's retention for a create: cached with the caller's key, else read from its account. */
export async function callerRetentionDays(
  env: Env,
  caller: { tenant_id: string; output_retention_days?: number },
): Promise<number> {
  if (caller.output_retention_days !== undefined) return caller.output_retention_days;
  return tenantRetentionDays((await accountSlice<TenantReadSlice>(env, caller.tenant_id).get())?.output_retention_days);
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
