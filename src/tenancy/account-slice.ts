/**
 * The tenant's account object as one concern sees it: the part of its RPC surface that the
 * concern declares in its own `account-slice.ts`. The object implements every slice
 * (src/accounts/account-rpc.ts extends them all), so a concern reaches the object without
 * importing the object's whole surface, and the object's folder without importing the concern's
 * callers. The one place such a stub is cast (src/lib/remote.ts says why).
 */
import type { Env } from "../env";
import { tenantNotFound } from "../errors/not-found";
import type { Remote } from "../lib/remote";
import type { TenantView } from "./tenant-row";

/** Every concern may read the tenant row. */
export interface TenantReadSlice {
  get(): TenantView | null;
}

const TENANT_ID = /^ten_[0-9a-z]{26}$/;

/** The account of a tenant id this service issued (a key's, a task's, a session's). */
export function accountSlice<Slice>(env: Env, tenantId: string): Remote<Slice> {
  return env.ACCOUNTS.getByName(tenantId) as unknown as Remote<Slice>;
}

/** The account of a tenant id that came from outside; a malformed id cannot exist, so 404. */
export function tenantSlice<Slice>(env: Env, tenantId: string): Remote<Slice> {
  if (!TENANT_ID.test(tenantId)) throw tenantNotFound(tenantId);
  return accountSlice<Slice>(env, tenantId);
}

/** The tenant, or 404 `tenant_not_found`. */
export async function getTenantOr404(env: Env, tenantId: string): Promise<TenantView> {
  const tenant = await tenantSlice<TenantReadSlice>(env, tenantId).get();
  if (!tenant) throw tenantNotFound(tenantId);
  return tenant;
}
