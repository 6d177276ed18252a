/**
 * The MCP tasks extension (`io.modelcontextprotocol/tasks`): when a client declares it on a
 * `tools/call`, a task-creating tool answers with a task handle instead of the envelope, and
 * the client follows it with `tasks/get` until it ends. The handle is our task: `taskId` is the
 * task id, so the same task is visible to `get_task`, REST and the console.
 *
 * Every `tasks/*` request is authorized against the caller's tenant: another tenant's task, or
 * one that does not exist, is the same "Task not found" (-32602).
 */

import { z } from "@hono/zod-openapi";
import {
  type CallToolResult,
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { ApiError } from "../errors/api-error";
import type { Env } from "../http/context";
import type { Caller, Permission } from "../services/accounts";
import type { AuditActor } from "../services/audit";
import type { RequestFrom } from "../services/contracts/request-from";
import type { Envelope, TaskStatus } from "../services/tasks";
import { callerAuditBy, cancelTask, keyScope, readOwnTask } from "../services/tasks";
import { asApiError, jsonRpcCodeOf, toolErrorBody } from "./errors";
import { taskResult, taskSummary } from "./results";
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** How often a client should ask again: a second or two is what our own follow loop uses. */
export const TASK_POLL_INTERVAL_MS = 2000;

type McpTaskStatus = "working" | "completed" | "cancelled";

interface TaskHandle {
  taskId: string;
  status: McpTaskStatus;
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Tasks are kept; no expiry is promised or applied. */
  ttlMs: null;
  pollIntervalMs: number;
}

/**
 * The extension's CreateTaskResult (flat: Result & Task). `content` is there because the SDK
 * checks every `tools/call` answer against CallToolResult; clients of the extension ignore it.
 */
export type CreateTaskResult = TaskHandle & { resultType: "task"; content: [] };

/**
 * Our statuses as the extension's. A failed task is `completed` with a tool error as its result:
 * the extension keeps `failed` for JSON-RPC errors, and a task that failed at the provider is a
 * tool execution error (its envelope says why).
 */
const STATUS: Record<TaskStatus, McpTaskStatus> = {
  queued: "working",
  running: "working",
  succeeded: "completed",
  failed: "completed",
  canceled: "cancelled",
};

/** Whether this request's client declared the extension (2026-07-28 requests carry it in `_meta`). */
export function declaresTasksExtension(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined;
  const declared = capabilities?.extensions?.[TASKS_EXTENSION];
  return declared !== undefined && declared !== null;
}

function handleOf(envelope: Envelope): TaskHandle {
  return {
    taskId: envelope.task_id,
    status: STATUS[envelope.status],
    statusMessage: taskSummary(envelope),
    createdAt: envelope.created_at,
    lastUpdatedAt: envelope.completed_at ?? envelope.cancel_requested_at ?? envelope.started_at ?? envelope.created_at,
    ttlMs: null,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
}

export function createTaskResult(envelope: Envelope): CreateTaskResult {
  return { resultType: "task", ...handleOf(envelope), content: [] };
}

/** What the task-creating tool call finally answers: the envelope; a failure as a tool error. */
export function finalToolResult(envelope: Envelope, origin: string): CallToolResult {
  const result = taskResult(envelope, origin);
  if (envelope.status !== "failed" || !envelope.error) return result;
  const error = { ...envelope.error, jsonrpc_code: jsonRpcCodeOf(envelope.error.code) };
  return { ...result, isError: true, structuredContent: { ...envelope, error } };
}

/** `tasks/get`: the task as the extension shows it, with the final result once it has one. */
export function detailedTask(envelope: Envelope, origin: string): Record<string, unknown> {
  const handle = handleOf(envelope);
  return handle.status === "completed" ? { ...handle, result: finalToolResult(envelope, origin) } : { ...handle };
}

interface TaskMethodScope {
  env: Env;
  caller: Caller;
  requestId: string;
  origin: string;
  actor?: AuditActor;
  from: RequestFrom;
}

/** A refusal of a `tasks/*` request: a JSON-RPC error with our error object as its data. */
function protocolError(error: ApiError, requestId: string, message = error.message): ProtocolError {
  return new ProtocolError(jsonRpcCodeOf(error.code), message, { error: toolErrorBody(error, requestId) });
}

function requireExtension(ctx: ServerContext): void {
  if (!declaresTasksExtension(ctx)) {
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  }
}

function requireAnyScope(caller: Caller, method: string, scopes: Permission[]): void {
  if (scopes.some((s) => caller.permissions.includes(s))) return;
  throw new ApiError("insufficient_scope", `${method} needs the scope ${scopes.map((s) => `'${s}'`).join(" or ")}.`, {
    details: { missing_scopes: scopes },
  });
}

/** The caller's task, or "Task not found" (also for a malformed id or another tenant's task). */
async function ownTask(scope: TaskMethodScope, taskId: string): Promise<Envelope> {
  return (await readOwnTask(scope.env, taskId, keyScope(scope.caller))).envelope();
}

/** Runs a `tasks/*` handler, answering our errors as JSON-RPC errors. */
async function answer<T>(scope: TaskMethodScope, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    const e = asApiError(error, scope.requestId);
    throw protocolError(e, scope.requestId, e.code === "task_not_found" ? `Failed to ${what}: Task not found` : e.message);
  }
}

const TaskParams = z.object({ taskId: z.string() });
const AnyResult = z.record(z.string(), z.unknown());

/** Registers `tasks/get`, `tasks/cancel` and `tasks/update` on a server answering `scope`'s caller. */
export function registerTaskMethods(mcp: McpServer, scope: TaskMethodScope): void {
  mcp.server.setRequestHandler("tasks/get", { params: TaskParams, result: AnyResult }, async ({ taskId }, ctx) => {
    requireExtension(ctx);
    return answer(scope, "retrieve task", async () => {
      requireAnyScope(scope.caller, "tasks/get", ["tasks:read", "tasks:write"]);
      return detailedTask(await ownTask(scope, taskId), scope.origin);
    });
  });

  // Cooperative, as the extension says: the request is acknowledged and the task ends `canceled`
  // if it can still be stopped; a provider job that cannot be stopped runs to its end.
  mcp.server.setRequestHandler("tasks/cancel", { params: TaskParams, result: AnyResult }, async ({ taskId }, ctx) => {
    requireExtension(ctx);
    return answer(scope, "cancel task", async () => {
      requireAnyScope(scope.caller, "tasks/cancel", ["tasks:write"]);
      await ownTask(scope, taskId);
      const by = callerAuditBy(scope.caller, scope.from, scope.actor);
      await cancelTask(scope.env, taskId, keyScope(scope.caller), "canceled through tasks/cancel", by).catch((e) => {
        if (!(e instanceof ApiError && e.code === "conflict")) throw e;
      });
      return {};
    });
  });

  // Our tasks never wait for client input, so there is never an outstanding request to answer:
  // responses are ignored (as the extension asks for unknown keys) once the task is known.
  mcp.server.setRequestHandler(
    "tasks/update",
    { params: TaskParams.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() }), result: AnyResult },
    async ({ taskId }, ctx) => {
      requireExtension(ctx);
      return answer(scope, "update task", async () => {
        requireAnyScope(scope.caller, "tasks/update", ["tasks:read", "tasks:write"]);
        await ownTask(scope, taskId);
        return {};
      });
    },
  );
}
