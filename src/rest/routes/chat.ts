import type { Env } from "../../http/context";
import { newRouter } from "../../http/context";
import type { Caller } from "../../services/accounts";
import type { CatalogBundle } from "../../services/catalog";
import { ChatCompletion, ChatCompletionRequest, ChatCompletionStream, chatCompletion, reviewChat } from "../../services/chat";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

export const chatRoutes = newRouter();

declare(
  chatRoutes,
  {
    method: "post",
    path: "/v1/chat/completions",
    operationId: "createChatCompletion",
    tags: ["Chat"],
    summary: "Chat completion (OpenAI-compatible; optionally streamed)",
    security: [{ bearerAuth: [] }],
    "x-lifecycle": "ga",
    "x-visibility": "internal",
    permission: "chat",
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: ChatCompletionRequest,
            examples: {
              auto: {
                summary: "One question, model chosen by the service",
                value: {
                  model: "auto",
                  messages: [{ role: "user", content: "Name three uses of a lighthouse." }],
                  max_tokens: 200,
                },
              },
            },
          },
        },
      },
    },
    responses: {
      200: {
        description: "The completion, or with `stream: true` an event stream of chunks",
        headers: {
          "X-Credits-Charged": { schema: { type: "string" }, description: "Credits captured (non-streaming answers)" },
          "X-Provider": { schema: { type: "string" }, description: "The provider whose route served the call" },
          "X-Model-Fallbacks": {
            schema: { type: "string" },
            description:
              "With `models`, when a model was passed over: the `model_fallbacks` list as JSON (streams carry it only here)",
          },
        },
        content: {
          "application/json": { schema: ChatCompletion },
          "text/event-stream": { schema: ChatCompletionStream },
        },
      },
      ...errorResponses(400, 401, 402, 403, 422, 429, 500, 502, 503, 504),
    },
  },
  async (c) => {
    const body = c.req.valid("json");
    const raw = (await c.req.json()) as Record<string, unknown>;
    return chatCompletion(
      { ...chatCall(c.env, c.get("caller"), c.get("requestId"), c.executionCtx), note: c.get("note") },
      body,
      raw,
    );
  },
);

/** One chat call of `caller`: what the completion needs of the request. */
function chatCall(env: Env, caller: Caller, requestId: string, ctx: Pick<ExecutionContext, "waitUntil">) {
  return {
    env,
    tenantId: caller.tenant_id,
    mode: caller.mode,
    keyId: caller.key_id,
    limits: caller.limits ?? null,
    held: caller.held === true,
    ...(caller.features ? { features: caller.features } : {}),
    requestId,
    waitUntil: (p: Promise<unknown>) => ctx.waitUntil(p),
    review: (bundle: CatalogBundle, reviewed: ChatCompletionRequest) => reviewChat(env, caller, requestId, reviewed, bundle),
  };
}
