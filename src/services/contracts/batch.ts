/** A batch: what creating one takes, the batch envelope, its items and the pages of both. */
import { z } from "@hono/zod-openapi";
import { ITEM_STATUSES } from "../../batches/batch-record";
import { CAPABILITIES } from "../../catalog/schema";
import { credits, MaxCredits } from "./credits";

export const BATCH_STATUSES = ["queued", "running", "completed", "canceling", "canceled"] as const;

export const BatchItemInput = z
  .object({
    custom_id: z.string().min(1).max(64).openapi({ description: "1 to 64 characters, unique in the batch", example: "sku-0001" }),
    body: z
      .record(z.string(), z.unknown())
      .openapi({ description: "Exactly the create body of the batch's operation, without `callback_url` (the batch's)" }),
  })
  .strict();

/** The fields of a batch's creation (every door's: REST adds the Idempotency-Key header, MCP an argument). */
export const BatchCreateFields = z.object({
  operation: z.enum(CAPABILITIES).openapi({ description: "The capability every item runs", example: "text_to_image" }),
  items: z.array(BatchItemInput).min(1).max(1000).optional().openapi({ description: "Up to 1,000 items inline" }),
  input_file_id: z
    .string()
    .max(128)
    .optional()
    .openapi({ description: "An upload of JSON lines `{custom_id, body}` (up to 10,000 lines), instead of `items`" }),
  max_credits: MaxCredits.optional().openapi({
    description:
      "The most the whole batch may hold or spend, in credits. Items that would pass it end `canceled` with `details.reason: batch_budget_exhausted`.",
  }),
  concurrency: z.number().int().min(1).max(100).optional().openapi({ description: "Tasks in flight at once (default 10)" }),
  callback_url: z.string().max(2048).optional().openapi({ description: "Receives one POST of the batch envelope when it ends" }),
  callback_signing_key_id: z.string().max(64).optional(),
  metadata: z.record(z.string(), z.string().max(512)).optional(),
});

/** Exactly one source of items. */
export const oneSource = (b: { items?: unknown; input_file_id?: unknown }) =>
  (b.items === undefined) !== (b.input_file_id === undefined);
export const ONE_SOURCE = { message: "Send exactly one of items and input_file_id", path: ["items"] };

export const BatchCreateBody = BatchCreateFields.strict().refine(oneSource, ONE_SOURCE).openapi("BatchCreateRequest");

export const BatchEnvelopeSchema = z
  .object({
    object: z.literal("batch"),
    batch_id: z.string().openapi({ example: `batch_${"0".repeat(64)}` }),
    operation: z.string(),
    status: z.enum(BATCH_STATUSES),
    counts: z.object({
      total: z.number().int(),
      queued: z.number().int(),
      running: z.number().int(),
      succeeded: z.number().int(),
      failed: z.number().int(),
      canceled: z.number().int(),
    }),
    billing: z.object({
      estimated_credits: credits("What every item may cost at most, summed at creation"),
      charged_credits: credits("What the batch's tasks hold or held"),
      refunded_credits: credits("What their ends gave back"),
    }),
    max_credits: z.string().nullable(),
    concurrency: z.number().int(),
    metadata: z.record(z.string(), z.string()),
    callback: z
      .object({
        url: z.string(),
        status: z.enum(["pending", "delivered", "failed"]),
        attempt_count: z.number().int(),
        delivered_at: z.string().nullable(),
        last_error: z.string().nullable(),
      })
      .optional(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    cancel_requested_at: z.string().nullable(),
    output_file_id: z.string().optional().openapi({ description: "When ended: the JSON lines of results, in item order" }),
    output_file_url: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: "A signed download URL of the output file; null once the file has expired" }),
    output_file_expires_at: z.string().nullable().optional().openapi({
      description:
        "When the output file is deleted: the tenant's output_retention_days from when it was written (null for a file written before files expired)",
    }),
    links: z.object({ self: z.string(), items: z.string(), cancel: z.string() }),
  })
  .openapi("Batch");

export const BatchItemView = z
  .object({
    object: z.literal("batch_item"),
    custom_id: z.string(),
    task_id: z.string().nullable(),
    status: z.enum(ITEM_STATUSES as [string, ...string[]]),
    error: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("BatchItem");

export const BatchItemsQuery = z
  .object({
    status: z.enum(ITEM_STATUSES as [string, ...string[]]).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: z.string().max(512).optional(),
  })
  .strict();

export const BatchListQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(100).default(20), cursor: z.string().max(512).optional() })
  .strict();

const page = <T extends z.ZodType>(item: T, name: string) =>
  z
    .object({ object: z.literal("list"), data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() })
    .openapi(name);

export const BatchItemPage = page(BatchItemView, "BatchItemPage");
export const BatchPage = page(BatchEnvelopeSchema, "BatchPage");
