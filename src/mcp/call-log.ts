/**
 * The request log's MCP door: each authenticated `tools/call` is one entry, `MCP <tool>`, with
 * the HTTP request's id, the status a REST client would have had (200 for a result, the error's
 * own status for a tool error) and what the services wrote in the call's note.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ApiError } from "../errors/api-error";
import { logCall, logsBodies, type RequestNote } from "../services/request-log";
import type { McpRequestScope } from "./server";
import type { CreateTaskResult } from "./tasks-extension";

export interface ToolOutcome {
  result: CallToolResult | CreateTaskResult;
  /** The error a tool error stands for; absent for a result. */
  error?: ApiError;
}

/** Writes the call's entry after its answer, off the call's path (the entry is batched per isolate). */
export function logToolCall(
  scope: McpRequestScope,
  tool: string,
  args: Record<string, unknown>,
  note: RequestNote,
  outcome: ToolOutcome,
): void {
  const bodies = logsBodies(scope.caller);
  // The result's JSON is what a program reads of a tool's answer: it stands for the response body.
  const answer = (outcome.result as CallToolResult).structuredContent ?? outcome.result;
  logCall(
    scope.env,
    {
      door: "mcp",
      requestId: scope.requestId,
      at: scope.at,
      method: "POST",
      route: `MCP ${tool}`,
      caller: scope.caller,
      status: outcome.error ? outcome.error.status : 200,
      errorCode: outcome.error?.code ?? null,
      userAgent: scope.userAgent,
      note,
      requestBody: bodies ? JSON.stringify(args) : null,
      response: bodies ? Response.json(answer) : null,
    },
    scope.waitUntil,
  );
}
