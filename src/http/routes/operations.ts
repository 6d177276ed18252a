/** Every task-creating operation, registered from its declaration in src/operations/. */
import { createRoute, z } from "@hono/zod-openapi";
import { OPERATIONS } from "../../operations";
import { IdempotencyKeyString } from "../../services/contracts/idempotency";
import { TaskEnvelope } from "../../services/contracts/task-envelope";
import { createTask, readAfterWait, requestSignal, taskStub } from "../../services/tasks";
import { TERMINAL } from "../../tasks/record";
import { keyScope } from "../../tasks/scope";
import { requireIdempotencyHeader, requireKey } from "../auth";
import { newRouter } from "../context";
import { MAX_WAIT_SECONDS, preferredWait, waitHeaders } from "../prefer";
import { errorResponses } from "../schemas";
import { taskContext } from "./task-shared";

export const operationRoutes = newRouter();

/**
 * Documented as the server enforces it. `requireIdempotencyHeader` runs first and answers a
 * missing or malformed key with its own error, so this schema only describes the header.
 */
const IdempotencyKey = IdempotencyKeyString.openapi({
  description:
    "1 to 128 printable ASCII characters, unique per logical request: a retry with the same key and body returns the original task instead of creating another.",
  example: "order-1234-cover-image",
});

for (const spec of OPERATIONS) {
  operationRoutes.openapi(
    createRoute({
      method: "post",
      path: spec.path,
      operationId: spec.operationId,
      tags: [spec.tag],
      summary: `${spec.summary} (asynchronous task)`,
      ...(spec.description ? { description: spec.description } : {}),
      security: [{ bearerAuth: [] }],
      "x-lifecycle": "preview",
      "x-capability": spec.capability,
      middleware: [requireKey("tasks:write"), requireIdempotencyHeader] as const,
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
    }),
    async (c) => {
      const body = c.req.valid("json") as Record<string, unknown>;
      const raw = (await c.req.json()) as Record<string, unknown>;
      const result = await createTask(taskContext(c), spec, body, raw);
      const wait = preferredWait(c.req.header("Prefer"));
      const headers = { ...result.headers, ...(wait === null ? {} : { ...waitHeaders(wait), Vary: "Prefer" }) };
      if (wait && !TERMINAL.has(result.envelope.status)) {
        // Still 202 (the spec's answer to a create), with the envelope as it is after the wait.
        const stub = taskStub(c.env, result.envelope.task_id);
        const read = await readAfterWait(stub, keyScope(c.get("caller")), result.envelope.status, wait, requestSignal(c.req.raw));
        if (read) return c.body(read.body, 202, { ...headers, "Content-Type": "application/json" }) as never;
      }
      return c.json(result.envelope as z.infer<typeof TaskEnvelope>, 202, headers);
    },
  );
}
