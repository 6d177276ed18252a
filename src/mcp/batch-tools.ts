/**
 * The batch tools: create a batch and read it, over the same service as POST /v1/batches and
 * GET /v1/batches/{id}. Each item's body is checked as the operation's own tool checks its arguments.
 */
import { z } from "@hono/zod-openapi";
import { createBatch, readBatch } from "../services/batches";
import { BatchCreateFields, BatchEnvelopeSchema, ONE_SOURCE, oneSource } from "../services/contracts/batch";
import { IdempotencyKeyString } from "../services/contracts/idempotency";
import { keyScope } from "../services/tasks";
import { dataResult } from "./results";
import { parseWith, READ_ONLY, zodTool } from "./tool";

const BatchId = z.string().min(1).max(200).openapi({ description: "A batch_id returned by create_batch (or by the REST API)" });

function summary(b: z.infer<typeof BatchEnvelopeSchema>): string {
  const c = b.counts;
  return `Batch ${b.batch_id} is ${b.status}: ${c.succeeded} succeeded, ${c.failed} failed, ${c.canceled} canceled, ${c.running} running, ${c.queued} queued of ${c.total}.`;
}

export const createBatchTool = zodTool({
  name: "create_batch",
  title: "Create a batch",
  description:
    "Runs many creates of one operation (its capability name, e.g. text_to_image) as one batch: items [{custom_id, body}] (up to 1,000; body is that operation's tool arguments without idempotency_key) or input_file_id (an uploaded JSON lines file). Every item is validated first; one invalid item refuses the batch with a pointer into it. At most `concurrency` tasks run at once, and max_credits caps the whole batch. Answers at once; follow it with get_batch. Pass idempotency_key to make a retried call return the same batch.",
  scopes: ["tasks:write"],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: BatchCreateFields.extend({
    idempotency_key: IdempotencyKeyString.optional().openapi({
      description: "A retry with the same key and arguments returns the same batch",
    }),
  })
    .strict()
    .refine(oneSource, ONE_SOURCE),
  output: BatchEnvelopeSchema,
  async run({ idempotency_key, ...body }, ctx) {
    const { envelope } = await createBatch(
      {
        env: ctx.env,
        caller: ctx.caller,
        requestId: ctx.requestId,
        idempotencyKey: idempotency_key ?? `mcp-${crypto.randomUUID()}`,
        note: ctx.note,
        ...(ctx.actor ? { actor: ctx.actor } : {}),
      },
      body,
      (spec, item) => parseWith(spec.schema, item as Record<string, unknown>, spec.path) as Record<string, unknown>,
    );
    return dataResult(summary(envelope as z.infer<typeof BatchEnvelopeSchema>), envelope);
  },
});

export const getBatchTool = zodTool({
  name: "get_batch",
  title: "Get a batch",
  description:
    "One of your batches: status (queued, running, completed, canceling, canceled), counts of its items by status, billing, and once ended output_file_url, a signed link to its results (JSON lines in item order).",
  scopes: ["tasks:read"],
  annotations: READ_ONLY,
  input: z.object({ batch_id: BatchId }).strict(),
  output: BatchEnvelopeSchema,
  async run({ batch_id }, ctx) {
    const b = await readBatch(ctx.env, batch_id, keyScope(ctx.caller));
    return dataResult(summary(b as z.infer<typeof BatchEnvelopeSchema>), b);
  },
});
