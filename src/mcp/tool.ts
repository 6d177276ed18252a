/**
 * What a tool of /mcp is: a name, the scopes it needs, its argument and result schemas (JSON
 * Schema made from the REST routes' zod schemas), and a function over the same services the
 * REST routes call.
 */

import { z } from "@hono/zod-openapi";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/server";
import type { Env } from "../http/context";
import { validationError } from "../http/validation";
import { type JsonSchema, jsonSchemaOf } from "../lib/json-schema";
import type { Caller, Permission } from "../services/accounts";
import type { AuditActor } from "../services/audit";
import type { RequestFrom } from "../services/contracts/request-from";
import type { RequestNote } from "../services/request-log";
import { ToolErrorContent } from "./errors";
import type { CreateTaskResult } from "./tasks-extension";

/** What one tool call runs with. */
export interface ToolContext {
  env: Env;
  caller: Caller;
  /** The HTTP request's id (X-Request-Id): tasks, errors and logs carry it. */
  requestId: string;
  /** The deployment's origin, for absolute links (PUBLIC_BASE_URL, else the request's origin). */
  origin: string;
  /** Who the audit log names (the signed-in member behind an OAuth grant); default: the caller's key. */
  actor?: AuditActor;
  /** Where the request came from, for the audit log. */
  from: RequestFrom;
  /** Fires when the client goes away or cancels the call. */
  signal: AbortSignal;
  /** Sends `notifications/progress` for this call; absent when the client gave no progress token. */
  progress?: (progress: number, total: number, message: string) => Promise<void>;
  /** The client declared the tasks extension on this request: task handles may be answered. */
  tasksExtension: boolean;
  /** What the services called learn for the call's log entry (model, task, charge, attempts). */
  note: RequestNote;
}

export interface ToolDefinition<A = unknown> {
  name: string;
  title: string;
  description: string;
  /** Every scope (API key permission) the caller must hold; none: any valid token. */
  scopes: readonly Permission[];
  annotations: ToolAnnotations;
  inputSchema: () => JsonSchema;
  /** What `tools/list` advertises: the result or the error object (see `outputSchemaOf`). */
  outputSchema: () => JsonSchema;
  /** The call's arguments, validated: throws ApiError `invalid_request` naming the field. */
  parse(args: Record<string, unknown>): A;
  run(args: A, ctx: ToolContext): Promise<CallToolResult | CreateTaskResult>;
}

/** Computes once per isolate, on first use. */
export function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

/**
 * A tool's output schema: its result, or the `{error}` object of a failed call. Clients check
 * `structuredContent` against it, and the 2025-era SDK does so for error results too: a schema
 * of the result alone would turn every tool error into a client-side validation failure. The
 * root stays `type: "object"`, which 2025-era clients require of an output schema.
 */
export function outputSchemaOf(result: z.ZodType): JsonSchema {
  const { $schema, ...union } = jsonSchemaOf(z.union([result, ToolErrorContent]));
  return {
    $schema,
    type: "object",
    description:
      "The tool's result; a call answered with isError true carries {error} (the REST error object and jsonrpc_code) instead.",
    ...union,
  };
}

/** Arguments checked by a zod schema, as the REST route checks its body or query. */
export function parseWith<S extends z.ZodType>(schema: S, args: Record<string, unknown>, route?: string): z.output<S> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) throw validationError("body", parsed.error.issues, { route, input: args });
  return parsed.data;
}

/** A tool whose arguments and result are each described by one zod schema. */
export function zodTool<I extends z.ZodType, O extends z.ZodType>(spec: {
  name: string;
  title: string;
  description: string;
  scopes: readonly Permission[];
  annotations: ToolAnnotations;
  input: I;
  output: O;
  run: (args: z.output<I>, ctx: ToolContext) => Promise<CallToolResult>;
}): ToolDefinition<z.output<I>> {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    scopes: spec.scopes,
    annotations: { title: spec.title, ...spec.annotations },
    inputSchema: once(() => jsonSchemaOf(spec.input)),
    outputSchema: once(() => outputSchemaOf(spec.output)),
    parse: (args) => parseWith(spec.input, args),
    run: spec.run,
  };
}

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
