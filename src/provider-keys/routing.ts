/**
 * Where a tenant's own keys put its routes. For the tenant's live tasks, the routes of a provider
 * it holds an active key for (of the listed models only, when it listed some) run on that key:
 *   prefer   — before the platform's routes;
 *   fallback — after them;
 *   only     — before them, and the platform's key is never used for that provider; the other
 *              providers' routes stay unless the key says `failover: false`.
 * Test-mode keys never reach this: their tasks run on the sandbox.
 */

import type { Capability, ModelFile } from "../catalog/schema";
import type { Env } from "../env";
import type { KeyMode } from "../keys/api-keys";
import { SANDBOX } from "../providers/names";
import { type RoutePlan, routeServes, upstreamModel } from "../providers/routing";
import { accountSlice } from "../tenancy/account-slice";
import { forgetFeatures, keepAnswer, keptAnswer, type TenantFeatures } from "../tenancy/tenant-features";
import type { ProviderKeysAccountSlice } from "./account-slice";
import type { ProviderKeyMode, ProviderKeyPlan } from "./rows";

/** The tenant's active keys for a create; none for a test-mode key, which never uses them. */
export async function tenantKeyPlans(
  env: Env,
  caller: { tenant_id: string; mode: KeyMode; features?: TenantFeatures },
): Promise<ProviderKeyPlan[]> {
  if (caller.mode !== "live") return [];
  // The key's resolution says the tenant holds no usable key: no call (src/tenancy/tenant-features.ts).
  if (caller.features && !caller.features.provider_keys) return [];
  const known = keptAnswer<ProviderKeyPlan[]>(caller.tenant_id, KEY_PLANS);
  if (known) return known;
  const at = Date.now();
  const plans = await accountSlice<ProviderKeysAccountSlice>(env, caller.tenant_id).providerKeyPlans();
  keepAnswer(caller.tenant_id, KEY_PLANS, plans, at);
  return plans;
}

const KEY_PLANS = "provider_key_plans";

/**
 * The provider refused the tenant's own key (a task's submission or a chat call): the account marks
 * it invalid and mails its owners once (docs/byok.md); this isolate stops routing to it at once,
 * others within the features' bound. Never fails its caller.
 */
export function providerKeyRefused(env: Env, tenantId: string, provider: string, reason: string): Promise<void> {
  forgetFeatures(tenantId);
  return accountSlice<ProviderKeysAccountSlice>(env, tenantId)
    .providerKeyRejected(provider, reason)
    .catch(() => undefined);
}

/** The keys that apply to a model: a key with a models list serves those models only. */
export function keysFor(model: string, keys: readonly ProviderKeyPlan[]): ProviderKeyPlan[] {
  return keys.filter((k) => k.models === null || k.models.includes(model));
}

/** The providers live for a caller: the deployment's, and those the tenant holds an active key for (a new set). */
export function withTenantProviders(platform: ReadonlySet<string>, keys: readonly ProviderKeyPlan[]): Set<string> {
  return new Set([...platform, ...keys.filter((k) => k.status !== "invalid").map((k) => k.provider)]);
}

/**
 * The task's routes in the order they are tried: the platform's (from routesFor), with the tenant's
 * own routes placed by their key's mode. An invalid key serves nothing, but an `only` key still
 * keeps the platform's key off its provider (and, with failover off, the other providers too): the
 * tenant chose its own account for that provider, valid or not. `feePercent` is the platform fee
 * promised for a task served on the tenant's key (BYOK_FEE_PERCENT at admission), kept on each such route.
 */
export function orderWithTenantKeys(
  model: ModelFile,
  capability: Capability,
  platform: RoutePlan[],
  keys: readonly ProviderKeyPlan[],
  feePercent: string,
): RoutePlan[] {
  const applicable = new Map(
    keysFor(model.model, keys)
      .filter((k) => model.routes.some((r) => r.provider === k.provider && routeServes(r, capability)))
      .map((k) => [k.provider, k]),
  );
  if (applicable.size === 0) return platform;
  const own = (mode: ProviderKeyMode): RoutePlan[] =>
    model.routes
      .filter((r) => {
        const k = applicable.get(r.provider);
        return k?.mode === mode && k.status !== "invalid" && routeServes(r, capability);
      })
      .map((r) => {
        const pricing = r.pricing?.[capability];
        return {
          provider: r.provider,
          upstream_model: upstreamModel(r, capability),
          ...(pricing ? { pricing } : {}),
          key: "tenant" as const,
          key_mode: mode,
          fee_percent: feePercent,
        };
      });
  const only = own("only");
  const preferred = own("prefer");
  const fallback = own("fallback");
  const mine = only.length + preferred.length + fallback.length;
  // An `only` key that closes failover keeps the task on the tenant's own routes.
  const closed = [...applicable.values()].some((k) => k.mode === "only" && !k.failover);
  const rest = closed
    ? []
    : platform.filter((r) => applicable.get(r.provider)?.mode !== "only" && (mine === 0 || r.provider !== SANDBOX));
  return [...only, ...preferred, ...rest, ...fallback];
}
