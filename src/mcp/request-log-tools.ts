/**
 * The request log tools: list the tenant's requests and read one with its provider attempts, over
 * the same service as GET /v1/requests and GET /v1/requests/{request_id} (`logs:read`).
 */
import { z } from "@hono/zod-openapi";
import { RequestDetail, RequestListQuery, RequestPage } from "../services/contracts/request-log";
import { getRequest, listQueryOf, listRequests, type RequestEntry } from "../services/request-log";
import { keyScope } from "../services/tasks";
import { dataResult } from "./results";
import { READ_ONLY, zodTool } from "./tool";

function line(e: RequestEntry): string {
  const cost = e.credits ? ` ${e.credits.charged} credits${e.credits.settled ? "" : " (held)"}` : "";
  const what = [e.model, e.task_id].filter(Boolean).join(" ");
  return `${e.request_id} ${e.created_at} ${e.route} ${e.status}${e.error_code ? ` ${e.error_code}` : ""}${what ? ` ${what}` : ""}${cost}`;
}

export const listRequestsTool = zodTool({
  name: "list_requests",
  title: "List requests",
  description:
    "The tenant's request log, newest first: every authenticated call (REST, MCP, console) with its route, status, error code, model, task and credits charged. Filter by time (since, until), status (200, 4xx, 5xx), route, key_id, model, task_id or error_code; pass next_cursor back as cursor for the next page. get_request shows one with its provider attempts.",
  scopes: ["logs:read"],
  annotations: READ_ONLY,
  input: RequestListQuery,
  output: RequestPage,
  async run(q, ctx) {
    const page = await listRequests(ctx.env, keyScope(ctx.caller), listQueryOf(q));
    const more = page.has_more ? ` More with cursor "${page.next_cursor}".` : "";
    const lines = page.data.map(line);
    return dataResult(
      `${page.data.length} request${page.data.length === 1 ? "" : "s"}.${more}${lines.length ? `\n${lines.join("\n")}` : ""}`,
      page,
    );
  },
});

export const getRequestTool = zodTool({
  name: "get_request",
  title: "Get a request",
  description:
    "One request of the log by its request_id (the X-Request-Id of a REST answer, or request_id of a tool error): route, status, model, task, credits, and every provider attempt with its outcome and timing (a task's attempts as the task goes on; a chat call's upstream calls), plus the request and response bodies when the tenant keeps them.",
  scopes: ["logs:read"],
  annotations: READ_ONLY,
  input: z
    .object({
      request_id: z
        .string()
        .min(1)
        .max(128)
        .openapi({ description: "The request's id", example: "req_1m8vxgy8gabcdefghjkmnpqrs" }),
    })
    .strict(),
  output: RequestDetail,
  async run({ request_id }, ctx) {
    const detail = await getRequest(ctx.env, keyScope(ctx.caller), request_id);
    const attempts = detail.attempts.map(
      (a) =>
        `  ${a.started_at} ${a.provider}/${a.upstream_model} (${a.key} key) ${a.outcome}${a.duration_ms === null ? "" : ` in ${a.duration_ms} ms`}${a.error ? `: ${a.error.code}: ${a.error.message}` : ""}`,
    );
    const head = `${line(detail)}; ${attempts.length} provider attempt${attempts.length === 1 ? "" : "s"}`;
    return dataResult(attempts.length ? `${head}:\n${attempts.join("\n")}` : `${head}.`, detail);
  },
});
