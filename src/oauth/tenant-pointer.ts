/**
 * Which tenants have ever issued an OAuth code or token: a directory pointer
 * `oauth-tenant:<tenant_id>`, written (once) before the first code of the tenant. Tokens carry
 * their tenant in clear, so a forged one could otherwise name any tenant id and wake, or create,
 * an account object for it; the pointer is checked first, and remembered by the isolate.
 */
import { directoryFor } from "../directory/directory-stub";
import type { Env } from "../env";

const known = new Set<string>();
const KNOWN_MAX = 10_000;

function name(tenantId: string): string {
  return `oauth-tenant:${tenantId}`;
}

export async function markOAuthTenant(env: Env, tenantId: string): Promise<void> {
  if (known.has(tenantId)) return;
  await directoryFor(env, name(tenantId)).put(name(tenantId), tenantId);
  remember(tenantId);
}

export async function knownTenant(env: Env, tenantId: string): Promise<boolean> {
  if (known.has(tenantId)) return true;
  const value = await directoryFor(env, name(tenantId)).get(name(tenantId));
  if (value !== tenantId) return false;
  remember(tenantId);
  return true;
}

function remember(tenantId: string): void {
  if (known.size >= KNOWN_MAX) known.clear();
  known.add(tenantId);
}
