/**
 * The request log's exports (`logs:manage`): the tenant's log streamed as OTLP traces to its
 * collector or as JSON Lines files to its storage destination, at least every minute and on
 * demand. Each route calls src/services/log-exports.ts.
 */
import { z } from "@hono/zod-openapi";
import { newRouter } from "../../http/context";
import { DeletedLogExport, LogExport, LogExportList, NewLogExport } from "../../services/contracts/log-exports";
import { requestFrom } from "../../services/contracts/request-from";
import { createLogExport, deleteLogExport, getLogExport, listLogExports, runLogExport } from "../../services/log-exports";
import { callerAuditBy, keyScope } from "../../services/tasks";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const security = [{ bearerAuth: [] }];
const tags = ["Request log"];
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const ExportPath = z.object({ export_id: z.string().min(1).max(64).openapi({ example: "lex_0123456789abcdefghjkmnpqrs" }) });

export const logExportRoutes = newRouter();

declare(
  logExportRoutes,
  {
    method: "post",
    path: "/v1/log-exports",
    operationId: "createLogExport",
    tags,
    summary: "Export the request log: OTLP traces to a collector, or JSON Lines files to a storage destination",
    description:
      "At most 5 exports per tenant. An `otlp` URL follows the webhooks' outside-URL policy (HTTPS, a public host). The export sends the requests of the creating key's mode that arrive from now on, at least every 60 seconds while there are new ones.",
    security,
    "x-lifecycle": "preview",
    permission: "logs:manage",
    request: { body: { required: true, content: { "application/json": { schema: NewLogExport } } } },
    responses: {
      201: json(LogExport, "The export (custom header values are never shown again: only their names)"),
      ...errorResponses(400, 401, 403, 409, 422, 429),
    },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await createLogExport(c.env, keyScope(caller), c.req.valid("json"), by), 201);
  },
);

declare(
  logExportRoutes,
  {
    method: "get",
    path: "/v1/log-exports",
    operationId: "listLogExports",
    tags,
    summary: "List the request log's exports, oldest first",
    security,
    "x-lifecycle": "preview",
    permission: "logs:manage",
    responses: { 200: json(LogExportList, "The exports"), ...errorResponses(401, 403, 429) },
  },
  async (c) => c.json(await listLogExports(c.env, keyScope(c.get("caller"))), 200),
);

declare(
  logExportRoutes,
  {
    method: "get",
    path: "/v1/log-exports/{export_id}",
    operationId: "getLogExport",
    tags,
    summary: "Get an export with its last run, last success, last error and delivered count",
    security,
    "x-lifecycle": "preview",
    permission: "logs:manage",
    request: { params: ExportPath },
    responses: { 200: json(LogExport, "The export"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => c.json(await getLogExport(c.env, keyScope(c.get("caller")), c.req.valid("param").export_id), 200),
);

declare(
  logExportRoutes,
  {
    method: "delete",
    path: "/v1/log-exports/{export_id}",
    operationId: "deleteLogExport",
    tags,
    summary: "Delete an export: nothing more is sent",
    security,
    "x-lifecycle": "preview",
    permission: "logs:manage",
    request: { params: ExportPath },
    responses: { 200: json(DeletedLogExport, "The export deleted"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await deleteLogExport(c.env, keyScope(caller), c.req.valid("param").export_id, by), 200);
  },
);

declare(
  logExportRoutes,
  {
    method: "post",
    path: "/v1/log-exports/{export_id}/run",
    operationId: "createLogExportRun",
    tags,
    summary: "Deliver what is new now; answers the export after the run (with `last_error` when it failed)",
    security,
    "x-lifecycle": "preview",
    permission: "logs:manage",
    request: { params: ExportPath },
    responses: { 200: json(LogExport, "The export after the run"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => c.json(await runLogExport(c.env, keyScope(c.get("caller")), c.req.valid("param").export_id), 200),
);
