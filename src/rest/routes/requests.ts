/**
 * The request log (`logs:read`): every authenticated call of the tenant, newest first, each with its
 * provider attempts and what it cost; and `POST …/replay` (`tasks:write`), which runs a logged
 * create or chat call again as a new request of the calling key. Each route calls
 * src/services/request-log.ts.
 */
import { z } from "@hono/zod-openapi";
import { newRouter } from "../../http/context";
import { IdempotencyKeyString } from "../../services/contracts/idempotency";
import { ReplayInput, RequestDetail, RequestListQuery, RequestPage } from "../../services/contracts/request-log";
import { getRequest, listQueryOf, listRequests, replayPlan } from "../../services/request-log";
import { keyScope } from "../../services/tasks";
import { declare } from "../declare";
import { dispatch } from "../replay-marks";
import { errorResponses } from "../schemas";

const security = [{ bearerAuth: [] }];
const tags = ["Request log"];
const RequestPath = z.object({ request_id: z.string().min(1).max(128).openapi({ example: "req_1m8vxgy8gabcdefghjkmnpqrs" }) });

export const requestLogRoutes = newRouter();

declare(
  requestLogRoutes,
  {
    method: "get",
    path: "/v1/requests",
    operationId: "listRequests",
    tags,
    summary: "List the tenant's requests, newest first, filtered",
    description:
      "Every authenticated request of the calling key's mode, from every door (REST, MCP, console), kept for the tenant's `request_log_retention_days`.",
    security,
    "x-lifecycle": "preview",
    permission: "logs:read",
    request: { query: RequestListQuery },
    responses: {
      200: { description: "A page of requests", content: { "application/json": { schema: RequestPage } } },
      ...errorResponses(400, 401, 403, 422, 429),
    },
  },
  async (c) => c.json(await listRequests(c.env, keyScope(c.get("caller")), listQueryOf(c.req.valid("query"))), 200),
);

declare(
  requestLogRoutes,
  {
    method: "get",
    path: "/v1/requests/{request_id}",
    operationId: "getRequest",
    tags,
    summary: "Get a request with every provider attempt (a task's as it goes on) and, where kept, its bodies",
    security,
    "x-lifecycle": "preview",
    permission: "logs:read",
    request: { params: RequestPath },
    responses: {
      200: { description: "The request", content: { "application/json": { schema: RequestDetail } } },
      ...errorResponses(401, 403, 404, 429),
    },
  },
  async (c) => c.json(await getRequest(c.env, keyScope(c.get("caller")), c.req.valid("param").request_id), 200),
);

declare(
  requestLogRoutes,
  {
    method: "post",
    path: "/v1/requests/{request_id}/replay",
    operationId: "createRequestReplay",
    tags,
    summary: "Run a logged create or chat call again, as a new request of this key (optionally on another model)",
    description:
      "Answers exactly as the create or chat call would (202 with a task, or the completion), under the Idempotency-Key given (a retry answers the same new task); the new request's log entry names `replay_of`.",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:write",
    idempotent: true,
    unlogged: true,
    request: {
      params: RequestPath,
      headers: z.object({
        "Idempotency-Key": IdempotencyKeyString.openapi({
          description: "The new request's Idempotency-Key: a retry with the same key answers the same new task",
        }),
      }),
      body: { required: false, content: { "application/json": { schema: ReplayInput } } },
    },
    responses: {
      200: { description: "The chat call's answer" },
      202: { description: "The task created" },
      ...errorResponses(400, 401, 402, 403, 404, 409, 422, 429),
    },
  },
  async (c) => {
    const id = c.req.valid("param").request_id;
    const plan = await replayPlan(c.env, keyScope(c.get("caller")), id, c.req.valid("json").model);
    const headers = new Headers({
      Authorization: c.req.header("Authorization") ?? "",
      "Content-Type": "application/json",
      "X-Request-Id": c.get("requestId"),
      "Idempotency-Key": c.req.header("Idempotency-Key") as string,
    });
    const ua = c.req.header("User-Agent");
    if (ua) headers.set("User-Agent", ua);
    const url = new URL(plan.path, c.req.url);
    return dispatch(new Request(url, { method: "POST", headers, body: JSON.stringify(plan.body) }), id, c.env, c.executionCtx);
  },
);
