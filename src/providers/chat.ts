/**
 * Chat upstreams by provider, behind the one ChatUpstream interface, and the failover between a
 * card's routes: before the first byte, a retryable failure of one route moves the request to the
 * card's next route (never to another model); once an upstream has answered, its answer is final.
 */
import type { ModelFile, Pricing } from "../catalog/schema";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
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
}

function chatUpstream(env: Env, provider: string): ChatUpstream | null {
  if (provider === "sandbox") return sandboxChat(env);
  const chat = Object.hasOwn(CHAT, provider) ? CHAT[provider] : undefined;
  if (!chat) return null;
  const config = providerConfig(env, provider, chat.defaultBaseUrl);
  return config?.baseUrl ? chat.make(config) : null;
}

/** The upstreams that may answer a chat card for this caller, in the order they are tried. */
export function chatRoutesFor(env: Env, model: ModelFile, providers: Set<string>): ChatRoute[] {
  const routes = routesFor(model, "chat_completion", providers).flatMap((r) => {
    const upstream = chatUpstream(env, r.provider);
    return upstream
      ? [{ provider: r.provider, upstream, upstreamModel: r.upstream_model, ...(r.pricing ? { pricing: r.pricing } : {}) }]
      : [];
  });
  if (routes.length === 0) {
    throw new ApiError("model_unavailable", `No chat upstream serving ${model.model} is configured on this deployment.`, {
      param: "/model",
      details: { model: model.model },
    });
  }
  return routes;
}

const FAILOVER_CODES = new Set(["model_rate_limited", "model_unavailable", "model_request_failed", "model_timeout"]);

/** Calls the routes in order until one answers; the last route's failure is the request's. */
/** Told of each upstream call once it answered (its outcome) or failed (the error): the request log's attempts. */
export type ChatAttemptReport = (route: ChatRoute, startedAt: number, error: unknown) => void;

export async function completeOnRoutes(
  routes: ChatRoute[],
  request: (route: ChatRoute) => ChatUpstreamRequest,
  signal: AbortSignal,
  report?: ChatAttemptReport,
): Promise<{ route: ChatRoute; result: ChatUpstreamResult }> {
  let last: unknown;
  for (const route of routes) {
    const startedAt = Date.now();
    try {
      const result = await route.upstream.complete(request(route), signal);
      report?.(route, startedAt, null);
      return { route, result };
    } catch (e) {
      report?.(route, startedAt, e);
      last = e;
      if (signal.aborted || !(e instanceof ApiError) || !FAILOVER_CODES.has(e.code)) throw e;
    }
  }
  throw last;
}
