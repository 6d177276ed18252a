/**
 * `POST /v1/quotes`: the price of a create before it is sent, binding for 15 minutes on the create
 * that carries its `quote_id` (docs/spend-controls.md). The quoted body is validated by the
 * operation's own schema, so a quote answers the create's errors with the create's params.
 */

import { newRouter } from "../../http/context";
import { validationError } from "../../http/validation";
import { Quote, QuoteRequest } from "../../services/contracts/quote";
import { createQuote, quotedOperation } from "../../services/quotes";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

export const quoteRoutes = newRouter();

declare(
  quoteRoutes,
  {
    method: "post",
    path: "/v1/quotes",
    operationId: "createQuote",
    tags: ["Tasks"],
    summary: "Quote a task before creating it",
    description:
      "Runs the create's whole validation and model selection on `request` (the same errors, with the same `param`s as the create) and answers the most the task can cost, per meter. Nothing is reserved or started. A create of the same body with `quote_id` runs on the quoted `resolved_model` and is charged at most `credits`, even if prices rise meanwhile; a quote lives 15 minutes and serves one task.",
    security: [{ bearerAuth: [] }],
    "x-lifecycle": "preview",
    permission: "tasks:write",
    request: { body: { required: true, content: { "application/json": { schema: QuoteRequest } } } },
    responses: {
      201: { description: "The quote", content: { "application/json": { schema: Quote } } },
      ...errorResponses(400, 401, 403, 404, 413, 422, 429, 503),
    },
  },
  async (c) => {
    const { operation, request } = c.req.valid("json");
    const spec = quotedOperation(operation);
    const parsed = spec.schema.safeParse(request);
    if (!parsed.success) throw validationError("body", parsed.error.issues, { route: spec.path, input: request });
    const caller = c.get("caller");
    const quote = await createQuote(
      { env: c.env, caller, requestId: c.get("requestId") },
      spec,
      parsed.data as Record<string, unknown>,
      request,
    );
    return c.json(quote, 201);
  },
);
