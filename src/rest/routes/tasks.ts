import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ApiError } from "../../errors/api-error";
import { taskNotFound } from "../../errors/not-found";
import { artifactResponse } from "../../http/artifact-response";
import type { Env } from "../../http/context";
import { type AppEnv, newRouter } from "../../http/context";
import { ifNoneMatchHits } from "../../http/etag";
import { MAX_WAIT_SECONDS, preferredWait, waitHeaders } from "../../http/prefer";
import type { Caller } from "../../services/accounts";
import { deprecationHeaders, loadCatalog } from "../../services/catalog";
import { requestFrom } from "../../services/contracts/request-from";
import { TaskEnvelope } from "../../services/contracts/task-envelope";
import { ListQuery, TaskPage } from "../../services/contracts/task-list";
import { KEEP_ALIVE_MS, parseLastEventId, RETRY_MS, STREAM_LIFETIME_MS, taskEventStream } from "../../services/task-events";
import type { TaskListQuery } from "../../services/tasks";
import {
  artifactInScope,
  callerAuditBy,
  cancelTask,
  keyScope,
  listTasks,
  readAfterWait,
  readOwnTask,
  readTask,
  readTaskState,
  requestSignal,
  TERMINAL,
} from "../../services/tasks";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

/** Deprecation headers for a task on a deprecated model (looked up only when its envelope says so). */
async function deprecationHeadersOf(env: Env, resolvedModel: string): Promise<Record<string, string>> {
  const model = (await loadCatalog(env.CATALOG)).models[resolvedModel];
  return model ? deprecationHeaders(model) : {};
}

const security = [{ bearerAuth: [] }];
const TaskPath = z.object({ task_id: z.string().openapi({ example: `task_${"0".repeat(64)}` }) });
const envelopeResponse = (description: string) => ({ description, content: { "application/json": { schema: TaskEnvelope } } });
const ReadHeaders = z.object({
  prefer: z
    .string()
    .optional()
    .openapi({ description: `\`wait=N\`: hold the answer up to N seconds (at most ${MAX_WAIT_SECONDS}) for the task to end` }),
  "if-none-match": z
    .string()
    .optional()
    .openapi({ description: "An ETag of an earlier answer: 304 while the task is unchanged" }),
});
const ReadResponseHeaders = z.object({
  ETag: z.string().openapi({ description: "Strong; changes whenever the envelope does" }),
  "Preference-Applied": z.string().optional().openapi({ description: "`wait=N` when a wait was asked for (N as applied)" }),
});
const EVENTS_EXAMPLE = `retry: ${RETRY_MS}

id: 1
event: status
data: {"task_id":"task_${"0".repeat(64)}","status":"queued","progress":{"percent":0,"stage":"queued","message":"Waiting to start"}}

id: 4
event: done
data: {"object":"task","task_id":"task_${"0".repeat(64)}","status":"succeeded"}
`;

export const taskRoutes = newRouter();

declare(
  taskRoutes,
  {
    method: "get",
    path: "/v1/tasks/{task_id}",
    operationId: "getTask",
    tags: ["Tasks"],
    summary: "Get a task",
    description: `Carries a strong \`ETag\`; \`If-None-Match\` with the current one answers 304. \`Prefer: wait=N\` (seconds, at most ${MAX_WAIT_SECONDS}; larger values count as ${MAX_WAIT_SECONDS}) holds the answer until the task is terminal or N seconds have passed, then answers with the envelope as it is (\`Preference-Applied: wait=N\`).`,
    security,
    "x-lifecycle": "preview",
    permission: "tasks:read",
    request: { params: TaskPath, headers: ReadHeaders },
    responses: {
      200: { ...envelopeResponse("The task envelope"), headers: ReadResponseHeaders },
      304: { description: "The task is unchanged since the ETag given in `If-None-Match`", headers: ReadResponseHeaders },
      ...errorResponses(400, 401, 403, 404),
    },
  },
  async (c) => {
    const { task_id } = c.req.valid("param");
    // The declared schema still describes this body (the object builds it with `envelope`).
    return (await taskRead(c.env, c.get("caller"), task_id, c.req.raw)) as never;
  },
);

/** `GET /v1/tasks/{task_id}`'s answer. */
async function taskRead(env: Env, caller: Caller, taskId: string, request: Request): Promise<Response> {
  const scope = keyScope(caller);
  const wait = preferredWait(request.headers.get("Prefer") ?? undefined);
  // The object answers with the envelope already serialised: nothing to copy or encode again here.
  let found = await readTask(env, taskId, scope);
  if (found && wait && !TERMINAL.has(found.status))
    found = await readAfterWait(env, taskId, scope, found.status, wait, requestSignal(request));
  if (!found) throw taskNotFound(taskId);
  const headers: Record<string, string> = { ETag: found.etag, Vary: "Prefer", ...waitHeaders(wait) };
  if (ifNoneMatchHits(request.headers.get("If-None-Match") ?? undefined, found.etag)) {
    return new Response(null, { status: 304, headers });
  }
  if (found.deprecated) Object.assign(headers, await deprecationHeadersOf(env, found.resolved_model));
  return new Response(found.body, { status: 200, headers: { ...headers, "Content-Type": "application/json" } });
}

declare(
  taskRoutes,
  {
    method: "get",
    path: "/v1/tasks/{task_id}/events",
    operationId: "streamTaskEvents",
    tags: ["Tasks"],
    summary: "Follow a task: a server-sent event stream of its changes, ending with the final envelope",
    description: `\`text/event-stream\`. \`event: status\` when the status changes (and first), \`event: progress\` when only the progress does, both with \`data: {"task_id", "status", "progress"}\`; then \`event: done\` whose data is the final task envelope, and the stream ends. A terminal task sends \`done\` at once. Every event has an increasing \`id\`: reconnect with \`Last-Event-ID\` to get only what is newer. \`retry: ${RETRY_MS}\` comes first and a \`: keep-alive\` comment about every ${KEEP_ALIVE_MS / 1000} s; a stream ends after ${STREAM_LIFETIME_MS / 60_000} minutes (reconnect with Last-Event-ID to go on).`,
    security,
    "x-lifecycle": "preview",
    permission: "tasks:read",
    request: {
      params: TaskPath,
      headers: z.object({
        "last-event-id": z
          .string()
          .optional()
          .openapi({ description: "The last event id received; only newer events are sent (ignored unless an integer)" }),
      }),
    },
    responses: {
      200: {
        description: "The event stream",
        content: { "text/event-stream": { schema: z.string().openapi({ example: EVENTS_EXAMPLE }) } },
      },
      ...errorResponses(400, 401, 403, 404),
    },
  },
  async (c) => {
    const { task_id } = c.req.valid("param");
    const scope = keyScope(c.get("caller"));
    const first = await readTaskState(c.env, task_id, scope);
    if (!first) throw taskNotFound(task_id);
    const headers = { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform" };
    // A HEAD asks for the headers only: nothing to follow.
    if (c.req.method === "HEAD") return new Response(null, { headers }) as never;
    const stream = taskEventStream({
      taskId: task_id,
      first,
      lastEventId: parseLastEventId(c.req.header("Last-Event-ID")),
      readState: () => readTaskState(c.env, task_id, scope),
      readFinal: () => readTask(c.env, task_id, scope),
      signal: requestSignal(c.req.raw),
    });
    return new Response(stream, { headers }) as never;
  },
);

declare(
  taskRoutes,
  {
    method: "post",
    path: "/v1/tasks/{task_id}/cancel",
    operationId: "cancelTask",
    tags: ["Tasks"],
    summary: "Cancel a task",
    description:
      "A queued task ends `canceled` with its credits released; a running task is canceled at the provider when it can be stopped, else 409 `conflict` (keep polling). A terminal task returns 200 with its final envelope.",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:write",
    request: {
      params: TaskPath,
      body: {
        required: false,
        content: { "application/json": { schema: z.object({ reason: z.string().max(500).optional() }).strict() } },
      },
    },
    responses: { 200: envelopeResponse("The task after the cancel request"), ...errorResponses(400, 401, 403, 404, 409, 422) },
  },
  async (c) => {
    const { task_id } = c.req.valid("param");
    const body = (c.req.valid("json") ?? {}) as { reason?: string };
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    const envelope = await cancelTask(c.env, task_id, keyScope(caller), body.reason ?? null, by);
    return c.json(envelope as z.infer<typeof TaskEnvelope>, 200);
  },
);

declare(
  taskRoutes,
  {
    method: "get",
    path: "/v1/tasks",
    operationId: "listTasks",
    tags: ["Tasks"],
    summary: "List the caller's tasks, newest first",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:read",
    request: { query: ListQuery },
    responses: {
      200: { description: "A page of tasks", content: { "application/json": { schema: TaskPage } } },
      ...errorResponses(400, 401, 403, 422),
    },
  },
  async (c) => {
    const q = c.req.valid("query");
    const caller = c.get("caller");
    const page = await listTasks(c.env, keyScope(caller), q as TaskListQuery);
    return c.json(
      {
        object: "list" as const,
        data: page.data as z.infer<typeof TaskEnvelope>[],
        has_more: page.has_more,
        next_cursor: page.next_cursor,
      },
      200,
    );
  },
);

declare(
  taskRoutes,
  {
    method: "get",
    path: "/v1/tasks/{task_id}/assets",
    operationId: "listTaskAssets",
    tags: ["Tasks"],
    summary: "The artifacts a task produced",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:read",
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
  },
  async (c) => {
    const { task_id } = c.req.valid("param");
    const task = await readOwnTask(c.env, task_id, keyScope(c.get("caller")));
    const artifacts = ((task.envelope().output as { artifacts?: Record<string, unknown>[] } | null)?.artifacts ?? []) as Record<
      string,
      unknown
    >[];
    return c.json({ object: "list" as const, data: artifacts }, 200);
  },
);

async function serveArtifact(c: Context<AppEnv>, id: string) {
  const head = await artifactInScope(c.env, id, keyScope(c.get("caller")));
  const notFound = () => new ApiError("artifact_not_found", `Artifact '${id}' does not exist.`);
  if (!head) throw notFound();
  // Never cached past the artifact's retention.
  const end = head.customMetadata?.expires_at;
  const left = end ? Math.floor((Date.parse(end) - Date.now()) / 1000) : 3600;
  return artifactResponse(c, id, { head, cacheControl: `private, max-age=${Math.max(0, Math.min(3600, left))}`, notFound });
}

declare(
  taskRoutes,
  {
    method: "get",
    path: "/v1/artifacts/{artifact_id}",
    operationId: "downloadArtifact",
    tags: ["Tasks"],
    summary: "Download an artifact (owner only; byte ranges supported)",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:read",
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
  },
  async (c) => serveArtifact(c, c.req.valid("param").artifact_id) as any,
);
