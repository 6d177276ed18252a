/**
 * The operator's side of a tenant's content review policy: read it, replace it (audited as
 * `safety.policy_set`). A policy travels with the tenant's key resolution, so every isolate
 * applies a change within the key cache's bound (5 s); the isolate that made it, at once.
 */

import type { z } from "@hono/zod-openapi";
import { accountFor, tenantAccount } from "../accounts/account-stub";
import { forgetCachedTenant } from "../accounts/service";
import type { Env } from "../env";
import { tenantNotFound } from "../errors/not-found";
import { type Acting, auditFields } from "../people/principal";
import { DEFAULT_POLICY, normalizePolicy, type SafetyPolicy, type SafetyPolicyInput } from "../safety/policy";
import { getTenantOr404 } from "../tenancy/account-slice";
export interface TenantSafetyPolicy extends SafetyPolicy {
  tenant_id: string;
}

export async function getSafetyPolicy(env: Env, tenantId: string): Promise<TenantSafetyPolicy> {
  await getTenantOr404(env, tenantId);
  const policy = (await accountFor(env, tenantId).safetyPolicy()) ?? DEFAULT_POLICY;
  return { tenant_id: tenantId, ...policy };
}

export async function setSafetyPolicy(
  env: Env,
  tenantId: string,
  input: z.infer<typeof SafetyPolicyInput>,
  acting: Acting,
): Promise<TenantSafetyPolicy> {
  const policy = normalizePolicy(input);
  const stored = await tenantAccount(env, tenantId).setSafetyPolicy(policy, {
    ...auditFields(acting),
    action: "safety.policy_set",
    target: tenantId,
    details: { ...policy },
  });
  if (!stored) throw tenantNotFound(tenantId);
  forgetCachedTenant(tenantId);
  return { tenant_id: tenantId, ...stored };
}
