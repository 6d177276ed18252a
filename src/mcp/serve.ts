/**
 * Answers one authenticated /mcp request with the SDK: a fresh server for this request, served
 * by `createMcpHandler` in whichever protocol era the request speaks. Loaded by endpoint.ts on
 * the first /mcp request, so an isolate serving only /v1 never evaluates the SDK.
 */
import { createMcpHandler } from "@modelcontextprotocol/server";
import { MAX_BODY_BYTES } from "../http/json-body";
import { buildMcpServer, type McpRequestScope } from "./server";

export function serveMcp(request: Request, scope: McpRequestScope): Promise<Response> {
  const handler = createMcpHandler(({ era }) => buildMcpServer(scope, era), {
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) =>
      console.warn(JSON.stringify({ level: "warn", where: "mcp", request_id: scope.requestId, message: String(error) })),
  });
  return handler.fetch(request);
}
