/**
 * How the service's errors leave /mcp. A tool that fails answers a result with `isError: true`
 * whose `structuredContent.error` is the REST error object plus `jsonrpc_code` (spec, Errors
 * rule 8), so the model sees the same vocabulary as a REST client. Protocol methods of our own
 * (`tasks/*`) answer JSON-RPC errors with the same code and the error object as `data`.
 */
import { z } from "@hono/zod-openapi";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ApiError, type ErrorBody } from "../errors/api-error";
import { ERROR_CODES, type ErrorCode } from "../errors/codes";
import { ErrorEnvelope } from "../services/contracts/error-envelope";

export const JSONRPC_INVALID_PARAMS = -32602;
export const JSONRPC_INTERNAL_ERROR = -32603;

/**
 * The one table from an error's HTTP status to the JSON-RPC code reported beside it. A 4xx says
 * the call as made cannot succeed (arguments, credentials, balance, state): Invalid params. A
 * 5xx, and 429 (capacity, not the call), says the service could not do it now: Internal error.
 */
export const JSONRPC_CODE_BY_STATUS: Readonly<Record<number, number>> = {
  400: JSONRPC_INVALID_PARAMS,
  401: JSONRPC_INVALID_PARAMS,
  402: JSONRPC_INVALID_PARAMS,
  403: JSONRPC_INVALID_PARAMS,
  404: JSONRPC_INVALID_PARAMS,
  409: JSONRPC_INVALID_PARAMS,
  413: JSONRPC_INVALID_PARAMS,
  422: JSONRPC_INVALID_PARAMS,
  429: JSONRPC_INTERNAL_ERROR,
  500: JSONRPC_INTERNAL_ERROR,
  501: JSONRPC_INTERNAL_ERROR,
  502: JSONRPC_INTERNAL_ERROR,
  503: JSONRPC_INTERNAL_ERROR,
  504: JSONRPC_INTERNAL_ERROR,
};

export function jsonRpcCodeOf(code: ErrorCode): number {
  const status = ERROR_CODES[code].status;
  return JSONRPC_CODE_BY_STATUS[status] ?? (status >= 500 ? JSONRPC_INTERNAL_ERROR : JSONRPC_INVALID_PARAMS);
}

export type ToolErrorBody = ErrorBody & { jsonrpc_code: number };

/**
 * A tool error's `structuredContent`: the REST error envelope, its error with `jsonrpc_code`.
 * Every tool's advertised output schema admits it beside the tool's result (tool.ts).
 */
export const ToolErrorContent = z
  .object({
    error: ErrorEnvelope.shape.error.extend({
      jsonrpc_code: z.number().int().openapi({ description: "The JSON-RPC code the error stands for: -32602 or -32603" }),
    }),
  })
  .openapi("ToolError");

/** Anything thrown by a tool, as the error it leaves as: unknown failures are `internal_error`. */
export function asApiError(error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  console.error(
    JSON.stringify({
      level: "error",
      request_id: requestId,
      where: "mcp",
      message: String(error),
      stack: (error as Error)?.stack,
    }),
  );
  return new ApiError("internal_error", "An unexpected error occurred; retry the same call.");
}

export function toolErrorBody(error: ApiError, requestId: string): ToolErrorBody {
  return { ...error.toBody(requestId), jsonrpc_code: jsonRpcCodeOf(error.code) };
}

/** A tool execution error: the message for the model, the error object for programs. */
export function toolError(error: ApiError, requestId: string): CallToolResult {
  const body = toolErrorBody(error, requestId);
  const where = body.param ? ` (at ${body.param})` : "";
  return {
    isError: true,
    content: [{ type: "text", text: `${body.code}: ${body.message}${where}` }],
    structuredContent: { error: body },
  };
}
