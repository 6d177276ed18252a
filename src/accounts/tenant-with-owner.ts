/** A new tenant with its first owner (`POST /admin/v1/tenants` with `owner_email`). */

import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { normaliseEmail } from "../people/email";
import { type Acting, auditFields } from "../people/principal";
import { userObject } from "../people/user-stub";
import { ensureUser } from "../people/users";
import { newTenantId, type TenantView } from "../tenancy/tenant-row";
import { accountFor } from "./account-stub";

export async function createTenantWithOwner(
  env: Env,
  input: { name: string; credits?: string; source?: string; owner_email: string },
  acting: Acting,
): Promise<TenantView> {
  const email = normaliseEmail(input.owner_email);
  if (!email) {
    throw new ApiError("invalid_request", "`owner_email` must be an email address.", {
      param: "/owner_email",
      details: { errors: [{ loc: ["body", "owner_email"], reason: "must be an email address" }] },
    });
  }
  const owner = await ensureUser(env, email);
  const tenantId = newTenantId();
  const tenant = await accountFor(env, tenantId).create({
    tenant_id: tenantId,
    name: input.name,
    ...(input.credits !== undefined ? { credits: input.credits } : {}),
    ...(input.source !== undefined ? { source: input.source } : {}),
    owner,
    audit: { ...auditFields(acting), action: "tenant.create", target: tenantId, details: { owner_email: email } },
  });
  await userObject(env, owner.user_id).addTenant(tenantId, tenant.name);
  return tenant;
}
