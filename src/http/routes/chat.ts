import { createRoute } from "@hono/zod-openapi";
import type { Caller } from "../../accounts/service";
import type { CatalogBundle } from "../../catalog/build";
import { chatCompletion } from "../../chat/complete";
import { ChatCompletion, ChatCompletionRequest, ChatCompletionStream } from "../../chat/schema";
import type { Env } from "../../env";
import { reviewChat } from "../../safety/chat";
import { requireKey } from "../auth";
import { newRouter } from "../context";
import { answerDirectly } from "../direct";
import { readJsonBody } from "../json-body";
import { errorResponses } from "../schemas";
import { validBody } from "../validation";

export const CHAT_PATH = "/v1/chat/completions";

export const chatRoutes = newRouter();

chatRoutes.openapi(
  createRoute({
    method: "post",
    path: CHAT_PATH,
    operationId: "createChatCompletion",
    tags: ["Chat"],
    summary: "Chat completion (OpenAI-compatible; optionally streamed)",
    security: [{ bearerAuth: [] }],
    "x-lifecycle": "ga",
    "x-visibility": "internal",
    middleware: [requireKey("chat")] as const,
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
        headers: { "X-Credits-Charged": { schema: { type: "string" }, description: "Credits captured (non-streaming answers)" } },
        content: {
          "application/json": { schema: ChatCompletion },
          "text/event-stream": { schema: ChatCompletionStream },
        },
      },
      ...errorResponses(400, 401, 402, 403, 422, 429, 500, 502, 503, 504),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const raw = (await c.req.json()) as Record<string, unknown>;
    return chatCompletion(chatCall(c.env, c.get("caller"), c.get("requestId"), c.executionCtx), body, raw);
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
    requestId,
    waitUntil: (p: Promise<unknown>) => ctx.waitUntil(p),
    review: (bundle: CatalogBundle, reviewed: ChatCompletionRequest) => reviewChat(env, caller, requestId, reviewed, bundle),
  };
}

/**
 * `POST /v1/chat/completions` answered without the router (src/http/direct.ts): the steps of the
 * declaration above, in its order — the JSON body read under its caps, the key and its
 * permission, the schema, the completion — with the same answers and headers.
 */
export function serveChat(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  return answerDirectly(request, env, ctx, async (call) => {
    const { value } = await readJsonBody(request);
    const caller = await call.caller("chat");
    const body = validBody(ChatCompletionRequest, value, CHAT_PATH);
    return chatCompletion(chatCall(env, caller, call.requestId, ctx), body, value as Record<string, unknown>);
  });
}
