/**
 * A tenant's own credential as an adapter's configuration. The key is sealed at rest bound to its
 * tenant and provider, so a sealed value copied to another tenant or provider does not open; it is
 * opened only in the task object of one of that tenant's tasks on that provider's route.
 */

import type { Env } from "../env";
import { seal, unseal } from "../lib/sealed";
import type { ProviderAdapter } from "../providers/adapter";
import { DEFAULT_TIMEOUT_MS, type ProviderConfig, providerConfig } from "../providers/config";
import { configFor } from "../providers/context";
import type { RoutePlan } from "../providers/routing";
import { accountSlice } from "../tenancy/account-slice";
import type { ProviderKeysAccountSlice } from "./account-slice";

function boundTo(tenantId: string, provider: string): string {
  return `provider-key:${tenantId}:${provider}`;
}

export function sealProviderKey(env: Env, tenantId: string, provider: string, apiKey: string): Promise<string> {
  return seal(env.STORAGE_ENCRYPTION_KEY, apiKey, boundTo(tenantId, provider));
}

export function unsealProviderKey(env: Env, tenantId: string, provider: string, sealed: string): Promise<string> {
  return unseal(env.STORAGE_ENCRYPTION_KEY, sealed, boundTo(tenantId, provider));
}

/**
 * The adapter's configuration with the tenant's key: the tenant's host when it gave one, else the
 * provider's documented host (never the deployment's own override, which may be a proxy of the
 * platform's account). The deployment's timeouts and settings apply; its account's identifiers
 * (key, organization, project, webhook secret) do not.
 */
export function tenantConfig(
  env: Env,
  adapter: Pick<ProviderAdapter, "name" | "defaultBaseUrl">,
  key: { api_key: string; base_url: string | null },
): ProviderConfig {
  const platform = providerConfig(env, adapter.name, adapter.defaultBaseUrl);
  const {
    api_key: _key,
    base_url: _base,
    organization: _org,
    project: _project,
    webhook_secret: _secret,
    ...extra
  } = platform?.extra ?? {};
  return {
    name: adapter.name,
    apiKey: key.api_key,
    baseUrl: (key.base_url ?? adapter.defaultBaseUrl).replace(/\/+$/, ""),
    timeoutMs: platform?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    extra,
  };
}

/**
 * The configuration a task calls its route's provider with: the tenant's own key on a tenant's
 * route (null when it was removed or became invalid since: the task moves on), else the deployment's.
 */
export async function configForTask(
  env: Env,
  adapter: ProviderAdapter,
  task: { tenant_id: string; route: RoutePlan },
): Promise<ProviderConfig | null> {
  if (task.route.key !== "tenant") return configFor(env, adapter);
  const found = await accountSlice<ProviderKeysAccountSlice>(env, task.tenant_id).providerCredential(adapter.name);
  if (!found) return null;
  const apiKey = await unsealProviderKey(env, task.tenant_id, adapter.name, found.key_sealed);
  return tenantConfig(env, adapter, { api_key: apiKey, base_url: found.base_url });
}

/**
 * The tenant's own credential for `provider` as a configuration on `defaultBaseUrl` (a chat
 * upstream's documented host), opened for one call of that tenant; null when the key was removed
 * since the call was routed.
 */
export async function tenantProviderConfig(
  env: Env,
  tenantId: string,
  provider: string,
  defaultBaseUrl: string,
): Promise<ProviderConfig | null> {
  const found = await accountSlice<ProviderKeysAccountSlice>(env, tenantId).providerCredential(provider);
  if (!found) return null;
  const apiKey = await unsealProviderKey(env, tenantId, provider, found.key_sealed);
  return tenantConfig(env, { name: provider, defaultBaseUrl }, { api_key: apiKey, base_url: found.base_url });
}
