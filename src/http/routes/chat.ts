import { createRoute } from "@hono/zod-openapi";
import { chatCompletion } from "../../chat/complete";
import { ChatCompletion, ChatCompletionRequest, ChatCompletionStream } from "../../chat/schema";
import { reviewChat } from "../../safety/chat";
import { requireKey } from "../auth";
import { newRouter } from "../context";
import { errorResponses } from "../schemas";

export const chatRoutes = newRouter();

chatRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/chat/completions",
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
    return chatCompletion(
      {
        env: c.env,
        tenantId: c.get("caller").tenant_id,
        mode: c.get("caller").mode,
        keyId: c.get("caller").key_id,
        limits: c.get("caller").limits ?? null,
        requestId: c.get("requestId"),
        waitUntil: (p) => c.executionCtx.waitUntil(p),
        review: (bundle, reviewed) => reviewChat(c.env, c.get("caller"), c.get("requestId"), reviewed, bundle),
      },
      body,
      raw,
    );
  },
);
