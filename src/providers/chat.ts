/**
 * Chat upstreams by provider, behind the one ChatUpstream interface, and the failover between a
 * card's routes: before the first byte, a retryable failure of one route moves the request to the
 * card's next route (never to another model); once an upstream has answered, its answer is final.
 */
import type { ModelFile, Pricing } from "../catalog/schema";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { tenantProviderConfig } from "../provider-keys/credential";
import { orderWithTenantKeys } from "../provider-keys/routing";
import type { ProviderKeyMode, ProviderKeyPlan } from "../provider-keys/rows";
import { anthropicAdapter, anthropicChat } from "./anthropic/index";
import type { ChatUpstream, ChatUpstreamRequest, ChatUpstreamResult } from "./chat-upstream";
import { type ProviderConfig, providerConfig } from "./config";
import { googleAdapter, googleChat } from "./google/index";
import { openAiCompatibleChat } from "./openai-compatible/chat";
import { routesFor } from "./routing";
import { sandboxChat } from "./sandbox/chat";

/** Chat upstreams by provider: their documented base URL ("" = none) and how to make one from its configuration. */
const CHAT: Record<string, { defaultBaseUrl: string; make: (config: ProviderConfig) => ChatUpstream }> = {
  openai: { defaultBaseUrl: "https://api.openai.com/v1", make: (c) => openAiCompatibleChat(c, "openai") },
  "openai-compatible": { defaultBaseUrl: "", make: (c) => openAiCompatibleChat(c) },
  deepseek: { defaultBaseUrl: "https://api.deepseek.com", make: (c) => openAiCompatibleChat(c, "deepseek") },
  anthropic: { defaultBaseUrl: anthropicAdapter.defaultBaseUrl, make: anthropicChat },
  google: { defaultBaseUrl: googleAdapter.defaultBaseUrl, make: googleChat },
};

export interface ChatRoute {
  provider: string;
  upstream: ChatUpstream;
  upstreamModel: string;
  /** The route's own price, where it has one. */
  pricing?: Pricing;
  /** "tenant": the call runs on the tenant's own key (src/provider-keys/routing.ts); absent: the platform's. */
  key?: "tenant";
  /** On a tenant's route: its key's mode (`only`: a refused key ends the call rather than moving on). */
  key_mode?: ProviderKeyMode;
  /** On a tenant's route: the percentage of the card price charged as the platform fee. */
  fee_percent?: string;
}

function chatUpstream(env: Env, provider: string): ChatUpstream | null {
  if (provider === "sandbox") return sandboxChat(env);
  const chat = Object.hasOwn(CHAT, provider) ? CHAT[provider] : undefined;
  if (!chat) return null;
  const config = providerConfig(env, provider, chat.defaultBaseUrl);
  return config?.baseUrl ? chat.make(config) : null;
}

/**
 * The upstream of a tenant's own key: the key is opened just before the call, for this call only
 * (never kept in the isolate), and the upstream is made with it in place of the platform's.
 */
function tenantChatUpstream(env: Env, tenantId: string, provider: string): ChatUpstream | null {
  const chat = Object.hasOwn(CHAT, provider) ? CHAT[provider] : undefined;
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

/** What routing a chat card for a tenant needs beyond the platform: its own keys (live calls only). */
export interface TenantKeys {
  tenantId: string;
  keys: readonly ProviderKeyPlan[];
  /** BYOK_FEE_PERCENT now (src/provider-keys/fee.ts). */
  feePercent: string;
}

/**
 * The upstreams that may answer a chat card for this caller, in the order they are tried: the
 * platform's live routes, with the tenant's own routes placed by their key's mode. An empty list
 * when none is configured (the caller decides what that means).
 */
export function chatRoutesOf(env: Env, model: ModelFile, providers: Set<string>, tenant?: TenantKeys): ChatRoute[] {
  const platform = routesFor(model, "chat_completion", providers);
  const plans =
    tenant && tenant.keys.length > 0
      ? orderWithTenantKeys(model, "chat_completion", platform, tenant.keys, tenant.feePercent)
      : platform;
  return plans.flatMap((r) => {
    const upstream =
      r.key === "tenant" && tenant ? tenantChatUpstream(env, tenant.tenantId, r.provider) : chatUpstream(env, r.provider);
    if (!upstream) return [];
    return [
      {
        provider: r.provider,
        upstream,
        upstreamModel: r.upstream_model,
        ...(r.pricing ? { pricing: r.pricing } : {}),
        ...(r.key === "tenant" ? { key: "tenant" as const, key_mode: r.key_mode, fee_percent: r.fee_percent } : {}),
      },
    ];
  });
}

export function noChatUpstream(model: string): ApiError {
  return new ApiError("model_unavailable", `No chat upstream serving ${model} is configured on this deployment.`, {
    param: "/model",
    details: { model },
  });
}

/** The upstreams that may answer a chat card for this caller, in the order they are tried. */
export function chatRoutesFor(env: Env, model: ModelFile, providers: Set<string>, tenant?: TenantKeys): ChatRoute[] {
  const routes = chatRoutesOf(env, model, providers, tenant);
  if (routes.length === 0) throw noChatUpstream(model.model);
  return routes;
}

const FAILOVER_CODES = new Set(["model_rate_limited", "model_unavailable", "model_request_failed", "model_timeout"]);

/** Whether a failure is the provider's side (another route, or another model, may serve): never one the request caused. */
export function providerSide(e: unknown): boolean {
  return (
    e instanceof ApiError &&
    FAILOVER_CODES.has(e.code) &&
    (e.details as { reason?: unknown } | undefined)?.reason !== "provider_key_rejected"
  );
}

/** The provider refused the tenant's own key (401, 403, or its quota spent, as OpenAI says it). */
export function tenantKeyRefused(route: ChatRoute, e: unknown): e is ApiError {
  if (route.key !== "tenant" || !(e instanceof ApiError)) return false;
  const d = (e.details ?? {}) as { upstream_status?: unknown; upstream_code?: unknown };
  return d.upstream_status === 401 || d.upstream_status === 403 || d.upstream_code === "insufficient_quota";
}

/** The refusal of a tenant's `only` key, as the call's answer (the key's provider never got the platform's key). */
export function keyRejected(route: ChatRoute, e: ApiError): ApiError {
  const status = (e.details as { upstream_status?: unknown } | undefined)?.upstream_status;
  return new ApiError("model_request_failed", `${route.provider} refused your own provider key: ${e.message}`, {
    details: {
      reason: "provider_key_rejected",
      provider: route.provider,
      ...(typeof status === "number" ? { upstream_status: status } : {}),
    },
  });
}

/** Told of each upstream call once it answered (its outcome) or failed (the error): the request log's attempts. */
export type ChatAttemptReport = (route: ChatRoute, startedAt: number, error: unknown) => void;

/**
 * Calls the routes in order until one answers; the last route's failure is the request's. A
 * tenant's key refused by its provider moves on (the same key would be refused again), except
 * with `only`, where it ends the call.
 */
export async function completeOnRoutes(
  routes: ChatRoute[],
  request: (route: ChatRoute) => ChatUpstreamRequest,
  signal: AbortSignal,
  report?: ChatAttemptReport,
): Promise<{ route: ChatRoute; result: ChatUpstreamResult; startedAt: number }> {
  let last: unknown;
  for (const route of routes) {
    const startedAt = Date.now();
    try {
      const result = await route.upstream.complete(request(route), signal);
      report?.(route, startedAt, null);
      return { route, result, startedAt };
    } catch (e) {
      report?.(route, startedAt, e);
      if (!signal.aborted && tenantKeyRefused(route, e)) {
        last = keyRejected(route, e);
        if (route.key_mode === "only") throw last;
        continue;
      }
      last = e;
      if (signal.aborted || !(e instanceof ApiError) || !FAILOVER_CODES.has(e.code)) throw e;
    }
  }
  throw last;
}
