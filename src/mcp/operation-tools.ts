/**
 * One tool per media operation, named by its capability (`text_to_image`, `text_to_video`, ...).
 * Its arguments are the REST body (the same zod schema, the same validation and error params)
 * plus `idempotency_key`; it admits the task exactly as the REST route does and answers at once.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ApiError } from "../errors/api-error";
import { jsonSchemaOf, withProperties } from "../lib/json-schema";
import { IDEMPOTENCY_KEY_JSON_SCHEMA, idempotencyKeyProblem } from "../services/contracts/idempotency";
import { TaskEnvelope } from "../services/contracts/task-envelope";
import type { OperationSpec } from "../services/operations";
import { OPERATIONS } from "../services/operations";
import { createTask } from "../services/tasks";
import { taskResult } from "./results";
import { type CreateTaskResult, createTaskResult } from "./tasks-extension";
import { once, outputSchemaOf, parseWith, type ToolContext, type ToolDefinition } from "./tool";

const IDEMPOTENCY_KEY_SCHEMA = {
  ...IDEMPOTENCY_KEY_JSON_SCHEMA,
  description:
    "Optional, 1 to 128 printable ASCII characters. A retry with the same key and arguments returns the original task instead of creating another (the same key space as the REST Idempotency-Key); without it every call creates a new task.",
};

interface OperationCall {
  body: Record<string, unknown>;
  raw: Record<string, unknown>;
  idempotencyKey: string;
}

function parseOperation(spec: OperationSpec, args: Record<string, unknown>): OperationCall {
  const { idempotency_key: key, ...raw } = args;
  if (key !== undefined && (typeof key !== "string" || idempotencyKeyProblem(key) !== null)) {
    const reason = typeof key !== "string" ? "must be a string" : "must be 1 to 128 printable ASCII characters";
    throw new ApiError("invalid_request", `idempotency_key ${reason}.`, {
      param: "/idempotency_key",
      details: { errors: [{ loc: ["body", "idempotency_key"], reason }] },
    });
  }
  const body = parseWith(spec.schema, raw, spec.path) as Record<string, unknown>;
  // Without a key every call is its own request: a fresh key, as a REST client would send.
  return { body, raw, idempotencyKey: key ?? `mcp-${crypto.randomUUID()}` };
}

function describe(spec: OperationSpec): string {
  return [
    `${spec.summary}. Creates an asynchronous ${spec.capability} task (the same as POST ${spec.path}) and answers at once with its envelope, status queued.`,
    "Then call wait_for_task with its task_id (up to 30 s a call) until status is succeeded, failed or canceled; the outputs come as resource_link items with signed URLs.",
    "Spends the tenant's credits (nothing with a test-mode key). Pass idempotency_key to make a retried call return the same task.",
    ...(spec.description ? [spec.description] : []),
  ].join(" ");
}

function operationTool(spec: OperationSpec): ToolDefinition<OperationCall> {
  return {
    name: spec.capability,
    title: spec.summary,
    description: describe(spec),
    scopes: ["tasks:write"],
    annotations: { title: spec.summary, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    inputSchema: once(() => withProperties(jsonSchemaOf(spec.schema), { idempotency_key: IDEMPOTENCY_KEY_SCHEMA })),
    outputSchema: once(() => outputSchemaOf(TaskEnvelope)),
    parse: (args) => parseOperation(spec, args),
    async run(call: OperationCall, ctx: ToolContext): Promise<CallToolResult | CreateTaskResult> {
      const { envelope } = await createTask(
        {
          env: ctx.env,
          caller: ctx.caller,
          requestId: ctx.requestId,
          idempotencyKey: call.idempotencyKey,
          note: ctx.note,
          ...(ctx.actor ? { actor: ctx.actor } : {}),
        },
        spec,
        call.body,
        call.raw,
      );
      // The task is committed in its object before admission returns: tasks/get finds it at once.
      return ctx.tasksExtension ? createTaskResult(envelope) : taskResult(envelope, ctx.origin);
    },
  };
}

export const OPERATION_TOOLS: ToolDefinition<OperationCall>[] = OPERATIONS.map(operationTool);
