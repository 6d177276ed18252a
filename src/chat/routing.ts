/** Which upstream serves a chat card on this deployment. */
import type { ModelFile } from "../catalog/schema";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { openAiCompatibleFromEnv } from "./openai-compatible";
import { sandboxChat } from "./sandbox-chat";
import type { ChatUpstream } from "./upstream";

export interface ChatRoute {
  upstream: ChatUpstream;
  upstreamModel: string;
}

/** A card's `openai-compatible` route when that upstream is configured, the sandbox otherwise. */
export function chatRouteFor(env: Env, model: ModelFile): ChatRoute {
  const remote = model.routes.find((r) => r.provider === "openai-compatible");
  const adapter = remote ? openAiCompatibleFromEnv(env) : null;
  if (remote && adapter) return { upstream: adapter, upstreamModel: remote.upstream_model };
  const sandbox = model.routes.find((r) => r.provider === "sandbox");
  if (sandbox && env.SANDBOX_ENABLED !== "false") return { upstream: sandboxChat(env), upstreamModel: sandbox.upstream_model };
  throw new ApiError("model_unavailable", `No chat upstream serving ${model.model} is configured on this deployment.`, {
    details: { model: model.model },
  });
}
