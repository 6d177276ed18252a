/**
 * Storage destinations (`storage:manage`): the tenant's own S3-compatible buckets that outputs are
 * delivered to. Each route calls src/services/storage-destinations.ts.
 */
import { z } from "@hono/zod-openapi";
import { newRouter } from "../../http/context";
import { requestFrom } from "../../services/contracts/request-from";
import {
  DeletedStorageDestination,
  DestinationChangeInput,
  NewDestinationInput,
  RedeliverInput,
  StorageDestination,
  StorageDestinationList,
} from "../../services/contracts/storage-destinations";
import { TaskEnvelope } from "../../services/contracts/task-envelope";
import {
  createDestination,
  deleteDestination,
  getDestination,
  listDestinations,
  redeliverTask,
  setDefaultDestination,
} from "../../services/storage-destinations";
import { callerAuditBy, keyScope } from "../../services/tasks";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const security = [{ bearerAuth: [] }];
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });
const DestinationPath = z.object({
  destination_id: z.string().max(64).openapi({ example: "dst_0123456789abcdefghjkmnpqrs" }),
});
const tags = ["Storage destinations"];

export const storageDestinationRoutes = newRouter();

declare(
  storageDestinationRoutes,
  {
    method: "post",
    path: "/v1/storage-destinations",
    operationId: "createStorageDestination",
    tags,
    summary: "Add an S3-compatible bucket for outputs, verified by writing and deleting a probe object",
    security,
    "x-lifecycle": "preview",
    permission: "storage:manage",
    request: body(NewDestinationInput),
    responses: {
      201: json(StorageDestination, "The destination; its key pair is never shown again (last 4 characters only)"),
      ...errorResponses(400, 401, 403, 409, 422, 429),
    },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await createDestination(c.env, keyScope(caller), c.req.valid("json"), by), 201);
  },
);

declare(
  storageDestinationRoutes,
  {
    method: "get",
    path: "/v1/storage-destinations",
    operationId: "listStorageDestinations",
    tags,
    summary: "List the tenant's storage destinations, oldest first",
    security,
    "x-lifecycle": "preview",
    permission: "storage:manage",
    responses: { 200: json(StorageDestinationList, "The destinations"), ...errorResponses(401, 403, 429) },
  },
  async (c) => c.json(await listDestinations(c.env, keyScope(c.get("caller"))), 200),
);

declare(
  storageDestinationRoutes,
  {
    method: "get",
    path: "/v1/storage-destinations/{destination_id}",
    operationId: "getStorageDestination",
    tags,
    summary: "Get a storage destination",
    security,
    "x-lifecycle": "preview",
    permission: "storage:manage",
    request: { params: DestinationPath },
    responses: { 200: json(StorageDestination, "The destination"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => c.json(await getDestination(c.env, keyScope(c.get("caller")), c.req.valid("param").destination_id), 200),
);

declare(
  storageDestinationRoutes,
  {
    method: "patch",
    path: "/v1/storage-destinations/{destination_id}",
    operationId: "updateStorageDestination",
    tags,
    summary: "Make a destination the tenant's default, or no longer",
    security,
    "x-lifecycle": "preview",
    permission: "storage:manage",
    request: { params: DestinationPath, ...body(DestinationChangeInput) },
    responses: { 200: json(StorageDestination, "The destination"), ...errorResponses(400, 401, 403, 404, 422, 429) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    const id = c.req.valid("param").destination_id;
    return c.json(await setDefaultDestination(c.env, keyScope(caller), id, c.req.valid("json").default, by), 200);
  },
);

declare(
  storageDestinationRoutes,
  {
    method: "delete",
    path: "/v1/storage-destinations/{destination_id}",
    operationId: "deleteStorageDestination",
    tags,
    summary: "Delete a destination: nothing more is delivered to it",
    security,
    "x-lifecycle": "preview",
    permission: "storage:manage",
    request: { params: DestinationPath },
    responses: { 200: json(DeletedStorageDestination, "The destination deleted"), ...errorResponses(401, 403, 404, 429) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    return c.json(await deleteDestination(c.env, keyScope(caller), c.req.valid("param").destination_id, by), 200);
  },
);

const TaskPath = z.object({
  task_id: z
    .string()
    .max(80)
    .openapi({ example: `task_${"0".repeat(64)}` }),
});

declare(
  storageDestinationRoutes,
  {
    method: "post",
    path: "/v1/tasks/{task_id}/deliveries",
    operationId: "createTaskDelivery",
    tags: ["Tasks"],
    summary: "Deliver a succeeded task's outputs again to its storage destination (or another)",
    description:
      "One attempt now for the outputs not yet in the task's destination; with `destination_id`, every output to that destination. Answers the envelope afterwards (`delivery` shows what arrived). The task's outcome and charge do not change.",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:write",
    request: {
      params: TaskPath,
      body: { required: false, content: { "application/json": { schema: RedeliverInput } } },
    },
    responses: { 200: json(TaskEnvelope, "The task after the delivery"), ...errorResponses(400, 401, 403, 404, 409, 422) },
  },
  async (c) => {
    const caller = c.get("caller");
    const by = callerAuditBy(caller, requestFrom(c.req.raw));
    const body = (c.req.valid("json") ?? {}) as { destination_id?: string };
    const envelope = await redeliverTask(c.env, c.req.valid("param").task_id, keyScope(caller), body.destination_id ?? null, by);
    return c.json(envelope as z.infer<typeof TaskEnvelope>, 200);
  },
);
