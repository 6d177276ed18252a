/** Every task-creating operation, registered from its declaration in src/operations/. */
import { z } from "@hono/zod-openapi";
import { newRouter } from "../../http/context";
import { MAX_WAIT_SECONDS, preferredWait, waitHeaders } from "../../http/prefer";
import { IdempotencyKeyString } from "../../services/contracts/idempotency";
import { TaskEnvelope } from "../../services/contracts/task-envelope";
import { OPERATIONS } from "../../services/operations";
import type { AdmissionContext } from "../../services/tasks";
import { createTask, keyScope, readAfterWait, requestSignal, TERMINAL } from "../../services/tasks";
import { declare } from "../declare";
import { errorResponses } from "../schemas";
import { taskContext } from "./task-shared";

export const operationRoutes = newRouter();

/** One task-creating operation, as declared in src/operations/. */
type Operation = (typeof OPERATIONS)[number];

/**
 * Documented as the server enforces it. The pipeline checks the key first (`idempotent`) and
 * answers a missing or malformed one with its own error, so this schema only describes the header.
 */
const IdempotencyKey = IdempotencyKeyString.openapi({
  description:
    "1 to 128 printable ASCII characters, unique per logical request: a retry with the same key and body returns the original task instead of creating another.",
  example: "order-1234-cover-image",
});

for (const spec of OPERATIONS) {
  declare(
    operationRoutes,
    {
      method: "post",
      path: spec.path,
      operationId: spec.operationId,
      tags: [spec.tag],
      summary: `${spec.summary} (asynchronous task)`,
      ...(spec.description ? { description: spec.description } : {}),
      security: [{ bearerAuth: [] }],
      "x-lifecycle": "preview",
      "x-capability": spec.capability,
      permission: "tasks:write",
      idempotent: true,
      request: {
        headers: z.object({
          "Idempotency-Key": IdempotencyKey,
          prefer: z
            .string()
            .optional()
            .openapi({
              description: `\`wait=N\`: answer once the task is terminal or after N seconds (at most ${MAX_WAIT_SECONDS}; larger values count as ${MAX_WAIT_SECONDS}), still 202, with the envelope as it then is and \`Preference-Applied: wait=N\``,
            }),
        }),
        body: { required: true, content: { "application/json": { schema: spec.schema, examples: spec.examples } } },
      },
      responses: {
        202: { description: "The task, queued", content: { "application/json": { schema: TaskEnvelope } } },
        ...errorResponses(400, 401, 402, 403, 404, 409, 413, 422, 503),
      },
    },
    async (c) => {
      const body = c.req.valid("json") as Record<string, unknown>;
      const raw = (await c.req.json()) as Record<string, unknown>;
      // The declared schema still describes this body (the envelope).
      return (await created(taskContext(c), spec, body, raw, c.req.raw)) as never;
    },
  );
}

/** A create's answer: 202 with the envelope (after `Prefer: wait`, as it then is). */
async function created(
  ctx: AdmissionContext,
  spec: Operation,
  body: Record<string, unknown>,
  raw: Record<string, unknown>,
  request: Request,
): Promise<Response> {
  const result = await createTask(ctx, spec, body, raw);
  const wait = preferredWait(request.headers.get("Prefer") ?? undefined);
  const headers = { ...result.headers, ...(wait === null ? {} : { ...waitHeaders(wait), Vary: "Prefer" }) };
  if (wait && !TERMINAL.has(result.envelope.status)) {
    // Still 202 (the spec's answer to a create), with the envelope as it is after the wait.
    const taskId = result.envelope.task_id;
    const read = await readAfterWait(ctx.env, taskId, keyScope(ctx.caller), result.envelope.status, wait, requestSignal(request));
    if (read) return new Response(read.body, { status: 202, headers: { ...headers, "Content-Type": "application/json" } });
  }
  return Response.json(result.envelope, { status: 202, headers });
}
