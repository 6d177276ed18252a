/**
 * The MCP server one /mcp request is answered by, built for its authenticated caller. Tools are
 * served through the SDK's low-level request handlers rather than `registerTool`, because their
 * failures must be our error objects (a validation failure names its field as `param`) and a
 * task-creating call may answer a task handle (the tasks extension), neither of which the
 * high-level registration can express.
 */

import {
  type CallToolResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Env } from "../http/context";
import type { Caller } from "../services/accounts";
import type { AuditActor } from "../services/audit";
import type { RequestFrom } from "../services/contracts/request-from";
import type { RequestNote } from "../services/request-log";
import { requireToolScope } from "./auth";
import { logToolCall } from "./call-log";
import { asApiError, toolError } from "./errors";
import { type CreateTaskResult, declaresTasksExtension, registerTaskMethods, TASKS_EXTENSION } from "./tasks-extension";
import type { ToolContext } from "./tool";
import { TOOLS, toolNamed } from "./tools";

export const SERVER_INFO = { name: "media-gateway", title: "Media Generation Task Service", version: "1.0.0" };

/** Lists are the same for every caller and change only with a deployment. */
const LIST_CACHE = { ttlMs: 600_000, cacheScope: "public" } as const;

const INSTRUCTIONS = [
  "Media generation as asynchronous tasks. A task-creating tool (text_to_image, text_to_video, text_to_speech, ...) answers at once with a task envelope;",
  "call wait_for_task with its task_id until the status is succeeded, failed or canceled. Outputs are resource_link items with signed URLs.",
  "list_models and get_model show what each model accepts; list_voices lists voices for text_to_speech; get_balance shows the credits.",
  "get_quote prices a call before it is made (pass its quote_id to bind the price); max_credits on any task-creating tool caps what it may cost.",
  "Errors are results with isError true and structuredContent.error {code, message, param, ...}: fix the field named by param and call again.",
].join(" ");

export interface McpRequestScope {
  env: Env;
  caller: Caller;
  requestId: string;
  /** The deployment's origin, for absolute links. */
  origin: string;
  /** Who the audit log names: the member behind an OAuth grant; absent for an API key. */
  actor?: AuditActor;
  /** Where the request came from, for the audit log. */
  from: RequestFrom;
  /** Ms since the epoch: when the HTTP request arrived (the log entry's `created_at`). */
  at: number;
  userAgent: string | null;
  /** Keeps work going after the answer (the log entry's write). */
  waitUntil: (p: Promise<unknown>) => void;
}

function progressSender(ctx: ServerContext): ToolContext["progress"] {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  return (progress, total, message) =>
    ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress, total, message } });
}

async function callTool(
  scope: McpRequestScope,
  name: string,
  args: Record<string, unknown>,
  ctx: ServerContext,
): Promise<CallToolResult | CreateTaskResult> {
  const tool = toolNamed(name);
  // An unknown tool is a protocol error, not a tool error (the spec's own example).
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const note: RequestNote = {};
  let outcome: Parameters<typeof logToolCall>[4];
  try {
    requireToolScope(scope.caller, tool.name, tool.scopes);
    const parsed = tool.parse(args);
    const result = await tool.run(parsed, {
      ...scope,
      signal: ctx.mcpReq.signal,
      progress: progressSender(ctx),
      tasksExtension: declaresTasksExtension(ctx),
      note,
    });
    outcome = { result };
  } catch (thrown) {
    const error = asApiError(thrown, scope.requestId);
    outcome = { result: toolError(error, scope.requestId), error };
  }
  logToolCall(scope, tool.name, args, note, outcome);
  return outcome.result;
}

/** A server for one request: `modern` (2026-07-28, per-request envelope) or `legacy` (2025 stateless). */
export function buildMcpServer(scope: McpRequestScope, era: "legacy" | "modern"): McpServer {
  const mcp = new McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    cacheHints: { "tools/list": LIST_CACHE, "server/discover": LIST_CACHE },
  });
  mcp.server.registerCapabilities({
    tools: { listChanged: false },
    // Requests of 2025-era (stateless) clients carry no capabilities of their own, so only a
    // 2026-07-28 client can declare the extension on a call: it is offered to those alone.
    ...(era === "modern" ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
  });
  mcp.server.setRequestHandler("tools/list", () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema() as { type: "object" },
      outputSchema: t.outputSchema() as { type: "object" },
      annotations: t.annotations,
    })),
  }));
  mcp.server.setRequestHandler(
    "tools/call",
    async (request, ctx) => (await callTool(scope, request.params.name, request.params.arguments ?? {}, ctx)) as CallToolResult,
  );
  registerTaskMethods(mcp, scope);
  return mcp;
}
