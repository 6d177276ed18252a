/** Batches: `/v1/batches` — create, list, read, the items, cancel. The rules are in src/services/batches.ts. */
import { z } from "@hono/zod-openapi";
import { newRouter } from "../../http/context";
import { validBody } from "../../http/validation";
import type { ItemStatus } from "../../services/batches";
import { cancelBatch, createBatch, listBatches, listBatchItems, readBatch } from "../../services/batches";
import {
  BatchCreateBody,
  BatchEnvelopeSchema,
  BatchItemPage,
  BatchItemsQuery,
  BatchListQuery,
  BatchPage,
} from "../../services/contracts/batch";
import { IdempotencyKeyString } from "../../services/contracts/idempotency";
import { requestFrom } from "../../services/contracts/request-from";
import type { OperationSpec } from "../../services/operations";
import { callerAuditBy, keyScope } from "../../services/tasks";
import { declare } from "../declare";
import { errorResponses } from "../schemas";
import { taskContext } from "./task-shared";

export const batchRoutes = newRouter();

const security = [{ bearerAuth: [] }];
const BatchPath = z.object({
  batch_id: z
    .string()
    .max(128)
    .openapi({ example: `batch_${"0".repeat(64)}` }),
});
const envelope = (description: string) => ({ description, content: { "application/json": { schema: BatchEnvelopeSchema } } });
type Batch = z.infer<typeof BatchEnvelopeSchema>;

/** An item's body checked as its create's body is: the same refusal, pointed into the item by the service. */
export const validateItemBody = (spec: OperationSpec, body: unknown) =>
  validBody(spec.schema, body, spec.path) as Record<string, unknown>;

declare(
  batchRoutes,
  {
    method: "post",
    path: "/v1/batches",
    operationId: "createBatch",
    tags: ["Batches"],
    summary: "Run many creates of one operation as a batch",
    description:
      "Every item is validated (its body's schema, then model selection and pricing, as its create would be) before anything starts; " +
      "one invalid item refuses the batch with `details.errors[]` pointing into it (`/items/17/body/prompt`, or the line of the input file). " +
      "Items then run as ordinary tasks, at most `concurrency` at once, each under an Idempotency-Key derived from the batch's and its `custom_id`.",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:write",
    idempotent: true,
    request: {
      headers: z.object({
        "Idempotency-Key": IdempotencyKeyString.openapi({ description: "Required: a retry answers the same batch" }),
      }),
      body: {
        required: true,
        content: {
          "application/json": {
            schema: BatchCreateBody,
            examples: {
              inline: {
                summary: "Two product shots, at most 10 credits, 5 at a time",
                value: {
                  operation: "text_to_image",
                  items: [
                    { custom_id: "sku-1", body: { prompt: "a red sneaker on a white background" } },
                    { custom_id: "sku-2", body: { prompt: "a blue sneaker on a white background" } },
                  ],
                  max_credits: "10",
                  concurrency: 5,
                  metadata: { campaign: "spring" },
                },
              },
            },
          },
        },
      },
    },
    responses: {
      202: envelope("The batch, queued"),
      ...errorResponses(400, 401, 403, 404, 409, 413, 422),
    },
  },
  async (c) => {
    const body = c.req.valid("json");
    const { envelope: batch } = await createBatch(taskContext(c), body, validateItemBody);
    return c.json(batch as Batch, 202, { Location: batch.links.self });
  },
);

declare(
  batchRoutes,
  {
    method: "get",
    path: "/v1/batches",
    operationId: "listBatches",
    tags: ["Batches"],
    summary: "List the caller's batches, newest first",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:read",
    request: { query: BatchListQuery },
    responses: {
      200: { description: "A page of batches", content: { "application/json": { schema: BatchPage } } },
      ...errorResponses(400, 401, 403, 422),
    },
  },
  async (c) => {
    const page = await listBatches(c.env, keyScope(c.get("caller")), c.req.valid("query"));
    return c.json({ ...page, data: page.data as Batch[] }, 200);
  },
);

declare(
  batchRoutes,
  {
    method: "get",
    path: "/v1/batches/{batch_id}",
    operationId: "getBatch",
    tags: ["Batches"],
    summary: "Read a batch: its status, counts and billing",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:read",
    request: { params: BatchPath },
    responses: { 200: envelope("The batch"), ...errorResponses(401, 403, 404) },
  },
  async (c) => {
    const { batch_id } = c.req.valid("param");
    return c.json((await readBatch(c.env, batch_id, keyScope(c.get("caller")))) as Batch, 200);
  },
);

declare(
  batchRoutes,
  {
    method: "get",
    path: "/v1/batches/{batch_id}/items",
    operationId: "listBatchItems",
    tags: ["Batches"],
    summary: "A batch's items in order: custom_id, task, status, error",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:read",
    request: { params: BatchPath, query: BatchItemsQuery },
    responses: {
      200: { description: "A page of items", content: { "application/json": { schema: BatchItemPage } } },
      ...errorResponses(400, 401, 403, 404, 422),
    },
  },
  async (c) => {
    const { batch_id } = c.req.valid("param");
    const q = c.req.valid("query");
    const page = await listBatchItems(c.env, batch_id, keyScope(c.get("caller")), {
      ...q,
      status: q.status as ItemStatus | undefined,
    });
    return c.json(page as z.infer<typeof BatchItemPage>, 200);
  },
);

declare(
  batchRoutes,
  {
    method: "post",
    path: "/v1/batches/{batch_id}/cancel",
    operationId: "cancelBatch",
    tags: ["Batches"],
    summary: "Cancel a batch: queued items end canceled, running tasks are asked to stop",
    security,
    "x-lifecycle": "preview",
    permission: "tasks:write",
    request: { params: BatchPath },
    responses: { 200: envelope("The batch after the request"), ...errorResponses(401, 403, 404) },
  },
  async (c) => {
    const { batch_id } = c.req.valid("param");
    const caller = c.get("caller");
    const batch = await cancelBatch(c.env, batch_id, keyScope(caller), callerAuditBy(caller, requestFrom(c.req.raw)));
    return c.json(batch as Batch, 200);
  },
);
