/**
 * The chat-completion request in the OpenAI wire format. Nested objects keep the default (unknown
 * keys are not validated); the top level is loose so that fields this service does not know reach
 * the upstream unchanged. The body forwarded upstream is the client's own JSON, not this parse.
 */
import { z } from "@hono/zod-openapi";
import { MaxCredits } from "../billing/max-credits";
import { ModelsList } from "../routing/models-list";
import { ProviderPreferences } from "../routing/preferences";

const TextPart = z.object({ type: z.literal("text"), text: z.string() });
const ImagePart = z.object({
  type: z.literal("image_url"),
  image_url: z.object({ url: z.string().min(1), detail: z.enum(["auto", "low", "high"]).optional() }),
});
const RefusalPart = z.object({ type: z.literal("refusal"), refusal: z.string() });

const UserContent = z.union([z.string(), z.array(z.discriminatedUnion("type", [TextPart, ImagePart])).min(1)]);
const TextContent = z.union([z.string(), z.array(TextPart).min(1)]);

export const ToolCall = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const name = z.string().min(1).max(64).optional();

export const ChatMessage = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: TextContent, name }),
  z.object({ role: z.literal("developer"), content: TextContent, name }),
  z.object({ role: z.literal("user"), content: UserContent, name }),
  z
    .object({
      role: z.literal("assistant"),
      content: z.union([z.string(), z.array(z.discriminatedUnion("type", [TextPart, RefusalPart]))]).nullish(),
      name,
      tool_calls: z.array(ToolCall).optional(),
      refusal: z.string().nullish(),
    })
    .refine((m) => (m.content !== undefined && m.content !== null) || (m.tool_calls?.length ?? 0) > 0, {
      message: "an assistant message needs content or tool_calls",
      path: ["content"],
    }),
  z.object({ role: z.literal("tool"), content: TextContent, tool_call_id: z.string().min(1) }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

export const Tool = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "letters, digits, '_' and '-', up to 64 characters"),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});
export type Tool = z.infer<typeof Tool>;

const ToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: z.string().min(1) }) }),
]);

const ResponseFormat = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z.object({ name: z.string().min(1), schema: z.record(z.string(), z.unknown()).optional() }).loose(),
  }),
]);

export const ChatCompletionRequest = z
  .object({
    model: z.string().min(1).default("auto").openapi({
      description:
        "Default `auto`: the service chooses a capable live model. Or a concrete id from GET /v1/models. Omitted when `models` is sent.",
    }),
    models: ModelsList.optional(),
    provider: ProviderPreferences.optional(),
    messages: z.array(ChatMessage).min(1),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    max_tokens: z.number().int().min(1).nullish(),
    max_completion_tokens: z.number().int().min(1).nullish(),
    stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
    n: z.number().int().min(1).max(128).nullish(),
    seed: z.number().int().nullish(),
    tools: z.array(Tool).optional(),
    tool_choice: ToolChoice.optional(),
    response_format: ResponseFormat.optional(),
    user: z.string().optional(),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
    max_credits: MaxCredits.optional().openapi({
      description:
        "Extension: the most this call may cost, in credits (decimal string). A call whose estimate (prompt plus the output budget) is above it is refused (422, param /max_credits) before anything is sent upstream; the charge never exceeds it. Not forwarded upstream.",
      example: "0.5",
    }),
  })
  .loose()
  .superRefine((body, ctx) => {
    if (body.tool_choice !== undefined && body.tool_choice !== "none" && !body.tools?.length) {
      ctx.addIssue({ code: "custom", path: ["tool_choice"], message: "tool_choice needs tools" });
    }
    const named = typeof body.tool_choice === "object" ? body.tool_choice.function.name : null;
    if (named && body.tools && !body.tools.some((t) => t.function.name === named)) {
      ctx.addIssue({ code: "custom", path: ["tool_choice", "function", "name"], message: `no tool is named '${named}'` });
    }
  })
  .openapi("ChatCompletionRequest");
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

const Usage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().int() }),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
});

/** Response shapes, for the API description; the handler builds them from the upstream's answer. */
export const ChatCompletion = z
  .object({
    id: z.string(),
    object: z.literal("chat.completion"),
    created: z.number().int(),
    model: z.string().openapi({ description: "The concrete model that answered (the `auto` choice, when asked)" }),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal("assistant"),
          content: z.string().nullable(),
          refusal: z.string().nullish(),
          tool_calls: z.array(ToolCall).optional(),
        }),
        logprobs: z.unknown().nullish(),
        finish_reason: z.enum(["stop", "length", "tool_calls", "content_filter"]),
      }),
    ),
    usage: Usage,
    model_fallbacks: z
      .array(
        z.object({
          model: z.string(),
          reason: z.string().openapi({ description: "A candidate failure code, or `upstream_failed` when its upstreams failed" }),
          at: z.string(),
          message: z.string().optional(),
        }),
      )
      .optional()
      .openapi({ description: "Extension, only when `models` was sent and a model was passed over: which, and why" }),
  })
  .openapi("ChatCompletion");

export const ChatCompletionStream = z.string().openapi({
  description:
    'Server-sent events: `data: <chat.completion.chunk>` per chunk as it arrives, a usage chunk when `stream_options.include_usage` is true, then `data: [DONE]`. A failure after the first chunk is one `data: {"error": {...}}` event before `[DONE]`.',
});
