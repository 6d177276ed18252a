import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { accountFor } from "../../accounts/service";
import { deprecationHeaders } from "../../catalog/deprecation";
import { CAPABILITIES } from "../../catalog/schema";
import { loadCatalog } from "../../catalog/store";
import type { Env } from "../../env";
import { ApiError } from "../../errors/api-error";
import { sha256Hex } from "../../lib/crypto";
import { artifactKey, headArtifact } from "../../media/artifacts";
import { type Envelope, TASK_STATUSES } from "../../tasks/record";
import type { CancelResult } from "../../tasks/task-object";
import { requireKey } from "../auth";
import { type AppEnv, newRouter } from "../context";
import { decideRange } from "../range";
import { errorResponses } from "../schemas";
import { TaskEnvelope } from "./task-shared";

const TASK_ID = /^task_([0-9a-f]{64})$/;

/** RPC typing cannot express the envelope's free-form parts; these are the object's real results. */
async function readTask(env: Env, taskId: string, tenantId: string): Promise<Envelope | null> {
  return (await taskStub(env, taskId).read(tenantId)) as unknown as Envelope | null;
}

/** Deprecation headers for a task on a deprecated model (looked up only when its envelope says so). */
async function deprecationHeadersOf(env: Env, resolvedModel: string): Promise<Record<string, string>> {
  const model = (await loadCatalog(env.CATALOG)).models[resolvedModel];
  return model ? deprecationHeaders(model) : {};
}

/** The task object behind a public id, or 404 for an id that cannot exist. */
export function taskStub(env: Env, taskId: string) {
  const m = TASK_ID.exec(taskId);
  if (m) {
    try {
      return env.TASKS.get(env.TASKS.idFromString(m[1] as string));
    } catch {
      // not an id of this namespace
    }
  }
  throw new ApiError("task_not_found", `Task '${taskId}' does not exist.`);
}

const security = [{ bearerAuth: [] }];
const TaskPath = z.object({ task_id: z.string().openapi({ example: `task_${"0".repeat(64)}` }) });
const envelopeResponse = (description: string) => ({ description, content: { "application/json": { schema: TaskEnvelope } } });

export const taskRoutes = newRouter();

taskRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/tasks/{task_id}",
    tags: ["Tasks"],
    summary: "Get a task",
    security,
    "x-lifecycle": "preview",
    middleware: [requireKey("tasks:read")] as const,
    request: { params: TaskPath },
    responses: { 200: envelopeResponse("The task envelope"), ...errorResponses(400, 401, 403, 404) },
  }),
  async (c) => {
    const { task_id } = c.req.valid("param");
    // The object answers with the envelope already serialised: nothing to copy or encode again here.
    const found = await taskStub(c.env, task_id).readJson(c.get("caller").tenant_id);
    if (!found) throw new ApiError("task_not_found", `Task '${task_id}' does not exist.`);
    const headers = found.deprecated ? await deprecationHeadersOf(c.env, found.resolved_model) : {};
    // The declared schema still describes this body (the object builds it with `envelope`).
    return c.body(found.body, 200, { ...headers, "Content-Type": "application/json" }) as never;
  },
);

taskRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/tasks/{task_id}/cancel",
    tags: ["Tasks"],
    summary: "Cancel a task",
    description:
      "A queued task ends `canceled` with its credits released; a running task is canceled at the provider when it can be stopped, else 409 `conflict` (keep polling). A terminal task returns 200 with its final envelope.",
    security,
    "x-lifecycle": "preview",
    middleware: [requireKey("tasks:write")] as const,
    request: {
      params: TaskPath,
      body: {
        required: false,
        content: { "application/json": { schema: z.object({ reason: z.string().max(500).optional() }).strict() } },
      },
    },
    responses: { 200: envelopeResponse("The task after the cancel request"), ...errorResponses(400, 401, 403, 404, 409, 422) },
  }),
  async (c) => {
    const { task_id } = c.req.valid("param");
    const body = (c.req.valid("json") ?? {}) as { reason?: string };
    const result = (await taskStub(c.env, task_id).cancel(
      c.get("caller").tenant_id,
      body.reason ?? null,
    )) as unknown as CancelResult;
    if (result.kind === "not_found") throw new ApiError("task_not_found", `Task '${task_id}' does not exist.`);
    if (result.kind === "conflict") {
      throw new ApiError("conflict", "The task is already running at a provider that cannot stop it; it continues.", {
        details: {
          action: "keep_polling",
          task_id,
          status: result.envelope.status,
          cancel_requested_at: result.envelope.cancel_requested_at,
          recovery: { action: "keep_polling", requires_input_change: false, client_request_id: "same" },
        },
      });
    }
    return c.json(result.envelope as z.infer<typeof TaskEnvelope>, 200);
  },
);

const ListQuery = z
  .object({
    status: z.enum(TASK_STATUSES as [string, ...string[]]).optional(),
    capability: z.enum(CAPABILITIES).optional(),
    created_after: z.string().optional().openapi({ description: "ISO 8601 date-time (exclusive)" }),
    created_before: z.string().optional().openapi({ description: "ISO 8601 date-time (exclusive)" }),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(512).optional(),
  })
  .strict();

const TaskPage = z
  .object({ object: z.literal("list"), data: z.array(TaskEnvelope), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .openapi("TaskPage");

function parseInstant(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new ApiError("invalid_window", `${field} must be an ISO 8601 date-time.`, {
      param: `/${field}`,
      details: { [field]: value },
    });
  }
  return new Date(ms).toISOString();
}

async function cursorTag(tenantId: string): Promise<string> {
  return (await sha256Hex(`cursor:${tenantId}`)).slice(0, 12);
}

function encodeCursor(c: object): string {
  return btoa(JSON.stringify(c)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function decodeCursor(cursor: string, tenantId: string): Promise<{ created_at: string; task_id: string }> {
  const invalid = () =>
    new ApiError("invalid_cursor", "The cursor is malformed or belongs to another listing.", { param: "/cursor" });
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    throw invalid();
  }
  const p = parsed as { v?: unknown; t?: unknown; c?: unknown; i?: unknown };
  if (
    p?.v !== 1 ||
    p.t !== (await cursorTag(tenantId)) ||
    typeof p.c !== "string" ||
    typeof p.i !== "string" ||
    !TASK_ID.test(p.i)
  )
    throw invalid();
  return { created_at: p.c, task_id: p.i };
}

taskRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/tasks",
    tags: ["Tasks"],
    summary: "List the caller's tasks, newest first",
    security,
    "x-lifecycle": "preview",
    middleware: [requireKey("tasks:read")] as const,
    request: { query: ListQuery },
    responses: {
      200: { description: "A page of tasks", content: { "application/json": { schema: TaskPage } } },
      ...errorResponses(400, 401, 403, 422),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const tenantId = c.get("caller").tenant_id;
    const after = parseInstant(q.created_after, "created_after");
    const before = parseInstant(q.created_before, "created_before");
    if (after && before && after >= before) {
      throw new ApiError("invalid_window", "created_after must be earlier than created_before.", {
        param: "/created_after",
        details: { created_after: q.created_after, created_before: q.created_before },
      });
    }
    const position = q.cursor ? await decodeCursor(q.cursor, tenantId) : undefined;
    const page = await accountFor(c.env, tenantId).listTasks({
      status: q.status,
      capability: q.capability,
      created_after: after,
      created_before: before,
      limit: q.limit,
      after: position,
    });
    const data = (await Promise.all(page.task_ids.map((id) => readTask(c.env, id, tenantId)))).filter((e) => e !== null);
    const next =
      page.has_more && page.last
        ? encodeCursor({ v: 1, t: await cursorTag(tenantId), c: page.last.created_at, i: page.last.task_id })
        : null;
    return c.json(
      { object: "list" as const, data: data as z.infer<typeof TaskEnvelope>[], has_more: page.has_more, next_cursor: next },
      200,
    );
  },
);

taskRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/tasks/{task_id}/assets",
    tags: ["Tasks"],
    summary: "The artifacts a task produced",
    security,
    "x-lifecycle": "preview",
    middleware: [requireKey("tasks:read")] as const,
    request: { params: TaskPath },
    responses: {
      200: {
        description: "Artifacts",
        content: {
          "application/json": {
            schema: z.object({ object: z.literal("list"), data: z.array(z.record(z.string(), z.unknown())) }),
          },
        },
      },
      ...errorResponses(401, 403, 404),
    },
  }),
  async (c) => {
    const { task_id } = c.req.valid("param");
    const env = await readTask(c.env, task_id, c.get("caller").tenant_id);
    if (!env) throw new ApiError("task_not_found", `Task '${task_id}' does not exist.`);
    const artifacts = ((env.output as { artifacts?: Record<string, unknown>[] } | null)?.artifacts ?? []) as Record<
      string,
      unknown
    >[];
    return c.json({ object: "list" as const, data: artifacts }, 200);
  },
);

async function serveArtifact(c: Context<AppEnv>, id: string) {
  const tenantId = c.get("caller").tenant_id;
  const head = await headArtifact(c.env.ARTIFACTS, id, tenantId);
  if (!head) throw new ApiError("artifact_not_found", `Artifact '${id}' does not exist.`);
  const headers = new Headers({
    "Content-Type": head.httpMetadata?.contentType ?? "application/octet-stream",
    "Accept-Ranges": "bytes",
    "Cache-Control": "private, max-age=3600",
    ETag: head.httpEtag,
    "X-Request-Id": c.get("requestId"),
  });
  const range = decideRange(c.req.header("Range"), head.size);
  if (range.kind === "unsatisfiable") {
    headers.set("Content-Range", `bytes */${head.size}`);
    headers.delete("Content-Type");
    return new Response(null, { status: 416, headers });
  }
  const object = await c.env.ARTIFACTS.get(
    artifactKey(id),
    range.kind === "partial" ? { range: { offset: range.offset, length: range.length } } : undefined,
  );
  if (!object) throw new ApiError("artifact_not_found", `Artifact '${id}' does not exist.`);
  if (range.kind === "partial") {
    headers.set("Content-Range", `bytes ${range.offset}-${range.offset + range.length - 1}/${head.size}`);
    headers.set("Content-Length", String(range.length));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("Content-Length", String(head.size));
  return new Response(object.body, { status: 200, headers });
}

taskRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/artifacts/{artifact_id}",
    tags: ["Tasks"],
    summary: "Download an artifact (owner only; byte ranges supported)",
    security,
    "x-lifecycle": "preview",
    middleware: [requireKey("tasks:read")] as const,
    request: { params: z.object({ artifact_id: z.string() }) },
    responses: {
      200: {
        description: "The bytes",
        content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
      },
      206: {
        description: "Part of the bytes",
        content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
      },
      416: { description: "No byte of the artifact is in the requested range (`Content-Range: bytes */<size>`)" },
      ...errorResponses(401, 403, 404),
    },
  }),
  async (c) => serveArtifact(c, c.req.valid("param").artifact_id) as any,
);
