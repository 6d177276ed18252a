/**
 * Chat upstreams by provider, behind the one ChatUpstream interface, and the failover between a
 * card's routes: before the first byte, a retryable failure of one route moves the request to the
 * card's next route (never to another model); once an upstream has answered, its answer is final.
 */
import type { Pricing } from "../catalog/schema";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { anthropicAdapter, anthropicChat } from "./anthropic/index";
import type { ChatUpstream, ChatUpstreamRequest, ChatUpstreamResult } from "./chat-upstream";
import { type ProviderConfig, providerConfig } from "./config";
import { googleAdapter, googleChat } from "./google/index";
import { openAiCompatibleChat } from "./openai-compatible/chat";
import type { RoutePlan } from "./routing";
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
  key_mode?: RoutePlan["key_mode"];
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
 * The upstreams that may answer a chat card, in the order given by `plans` (the platform's routes,
 * perhaps with a tenant's own placed among them by src/chat/routes.ts): a tenant's route is made
 * by `tenantUpstream`. An empty list when none is configured (the caller decides what that means).
 */
export function chatRoutesFrom(
  env: Env,
  plans: readonly RoutePlan[],
  tenantUpstream?: (provider: string) => ChatUpstream | null,
): ChatRoute[] {
  return plans.flatMap((r) => {
    const upstream = r.key === "tenant" ? (tenantUpstream?.(r.provider) ?? null) : chatUpstream(env, r.provider);
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

/** How a provider's chat upstream is made from a configuration, and its documented base URL (none: not a chat provider). */
export function chatMaker(
  provider: string,
): { defaultBaseUrl: string; make: (config: ProviderConfig) => ChatUpstream } | undefined {
  return Object.hasOwn(CHAT, provider) ? CHAT[provider] : undefined;
}

export function noChatUpstream(model: string): ApiError {
  return new ApiError("model_unavailable", `No chat upstream serving ${model} is configured on this deployment.`, {
    param: "/model",
    details: { model },
  });
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
