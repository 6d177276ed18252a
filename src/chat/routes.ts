/**
 * A chat card's routes for a caller: the platform's live routes, with the tenant's own placed
 * among them by their key's mode (src/provider-keys/routing.ts), each made into an upstream
 * (src/providers/chat.ts). A tenant's key is opened just before its call, for that call only.
 */
import type { ModelFile } from "../catalog/schema";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { tenantProviderConfig } from "../provider-keys/credential";
import { orderWithTenantKeys } from "../provider-keys/routing";
import type { ProviderKeyPlan } from "../provider-keys/rows";
import { type ChatRoute, chatMaker, chatRoutesFrom } from "../providers/chat";
import type { ChatUpstream } from "../providers/chat-upstream";
import { routesFor } from "../providers/routing";

/** What routing a chat card for a tenant needs beyond the platform: its own keys (live calls only). */
export interface TenantKeys {
  tenantId: string;
  keys: readonly ProviderKeyPlan[];
  /** BYOK_FEE_PERCENT now (src/provider-keys/fee.ts). */
  feePercent: string;
}

/** The upstream of a tenant's own key, made with it in place of the platform's when the call goes out. */
function tenantChatUpstream(env: Env, tenantId: string, provider: string): ChatUpstream | null {
  const chat = chatMaker(provider);
  if (!chat) return null;
  return {
    name: provider,
    async complete(req, signal) {
      const config = await tenantProviderConfig(env, tenantId, provider, chat.defaultBaseUrl);
      // Removed (or made invalid) since the call was routed: this route cannot serve, the next may.
      if (!config?.baseUrl) {
        throw new ApiError("model_unavailable", `Your own ${provider} key is no longer available for this call.`, {
          details: { reason: "provider_key_missing", provider },
        });
      }
      return chat.make(config).complete(req, signal);
    },
  };
}

/** The upstreams that may answer a chat card for this caller, in the order they are tried (empty: none configured). */
export function chatRoutesOf(env: Env, model: ModelFile, providers: Set<string>, tenant?: TenantKeys): ChatRoute[] {
  const platform = routesFor(model, "chat_completion", providers);
  if (!tenant || tenant.keys.length === 0) return chatRoutesFrom(env, platform);
  const plans = orderWithTenantKeys(model, "chat_completion", platform, tenant.keys, tenant.feePercent);
  return chatRoutesFrom(env, plans, (provider) => tenantChatUpstream(env, tenant.tenantId, provider));
}
