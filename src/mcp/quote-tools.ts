/**
 * `get_quote`: what a media tool call would cost, as POST /v1/quotes answers it for the same
 * caller. The quoted arguments are validated by the operation's own schema, so a quote fails as
 * the tool call would, at the same param.
 */
import { z } from "@hono/zod-openapi";
import { Quote } from "../services/contracts/quote";
import { OPERATIONS } from "../services/operations";
import { createQuote, quotedOperation } from "../services/quotes";
import { dataResult } from "./results";
import { parseWith, zodTool } from "./tool";

const OPERATION_NAMES = OPERATIONS.map((s) => s.capability) as [string, ...string[]];

export const getQuoteTool = zodTool({
  name: "get_quote",
  title: "Get a price quote",
  description:
    "The most a media tool call would cost, per meter, before making it: validates `arguments` exactly as the tool named by `operation` would (same errors) and chooses the model, but starts and spends nothing. Pass the answer's quote_id as `quote_id` with the same arguments to that tool: the task runs on the quoted resolved_model and is charged at most the quoted credits, even if prices rise. A quote lives 15 minutes and serves one task.",
  scopes: ["tasks:write"],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: z
    .object({
      operation: z.enum(OPERATION_NAMES).openapi({ description: "The media tool to quote (text_to_image, text_to_video, …)" }),
      arguments: z
        .record(z.string(), z.unknown())
        .openapi({ description: "That tool's arguments as they will be sent, without quote_id (an idempotency_key is ignored)" }),
    })
    .strict(),
  output: Quote,
  async run({ operation, arguments: args }, ctx) {
    const spec = quotedOperation(operation);
    // The tool call's own key is not part of the request (the same arguments can be passed as they are).
    const { idempotency_key: _key, ...request } = args;
    const body = parseWith(spec.schema, request, spec.path) as Record<string, unknown>;
    const quote = await createQuote({ env: ctx.env, caller: ctx.caller, requestId: ctx.requestId }, spec, body, request);
    const lines = quote.lines.map((l) => `${l.meter}: ${l.quantity} ${l.unit} × ${l.unit_credits} = ${l.credits}`);
    return dataResult(
      `${quote.credits} credits at most on ${quote.resolved_model} (${lines.join("; ")}). Pass quote_id ${quote.quote_id} to ${operation} with the same arguments before ${quote.expires_at}.`,
      quote,
    );
  },
});
