/**
 * Chat upstreams by provider, behind the one ChatUpstream interface, and the failover between a
 * card's routes: before the first byte, a retryable failure of one route moves the request to the
 * card's next route (never to another model); once an upstream has answered, its answer is final.
 */
import type { ModelFile } from "../catalog/schema";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import type { ChatUpstream, ChatUpstreamRequest, ChatUpstreamResult } from "./chat-upstream";
import { providerConfig } from "./config";
import { openAiCompatibleChat } from "./openai-compatible/chat";
import { routesFor } from "./routing";
import { sandboxChat } from "./sandbox/chat";

/** Providers whose chat speaks the OpenAI wire format, with their documented base URL ("" = none). */
const OPENAI_WIRE: Record<string, string> = {
  openai: "https://api.openai.com/v1",
  "openai-compatible": "",
};

export interface ChatRoute {
  provider: string;
  upstream: ChatUpstream;
  upstreamModel: string;
}

function chatUpstream(env: Env, provider: string): ChatUpstream | null {
  if (provider === "sandbox") return sandboxChat(env);
  const base = Object.hasOwn(OPENAI_WIRE, provider) ? OPENAI_WIRE[provider] : undefined;
  if (base === undefined) return null;
  const config = providerConfig(env, provider, base);
  return config?.baseUrl ? openAiCompatibleChat(config, provider) : null;
}

/** The upstreams that may answer a chat card for this caller, in the order they are tried. */
export function chatRoutesFor(env: Env, model: ModelFile, providers: Set<string>): ChatRoute[] {
  const routes = routesFor(model, "chat_completion", providers).flatMap((r) => {
    const upstream = chatUpstream(env, r.provider);
    return upstream ? [{ provider: r.provider, upstream, upstreamModel: r.upstream_model }] : [];
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
export async function completeOnRoutes(
  routes: ChatRoute[],
  request: (route: ChatRoute) => ChatUpstreamRequest,
  signal: AbortSignal,
): Promise<{ route: ChatRoute; result: ChatUpstreamResult }> {
  let last: unknown;
  for (const route of routes) {
    try {
      return { route, result: await route.upstream.complete(request(route), signal) };
    } catch (e) {
      last = e;
      if (signal.aborted || !(e instanceof ApiError) || !FAILOVER_CODES.has(e.code)) throw e;
    }
  }
  throw last;
}
