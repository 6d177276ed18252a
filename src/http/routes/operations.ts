/** Every task-creating operation, registered from its declaration in src/operations/. */
import { createRoute, z } from "@hono/zod-openapi";
import { OPERATIONS } from "../../operations";
import { admitOperation } from "../../tasks/admit";
import { requireIdempotencyHeader, requireKey } from "../auth";
import { newRouter } from "../context";
import { errorResponses } from "../schemas";
import { TaskEnvelope, taskContext } from "./task-shared";

export const operationRoutes = newRouter();

for (const spec of OPERATIONS) {
  operationRoutes.openapi(
    createRoute({
      method: "post",
      path: spec.path,
      tags: [spec.tag],
      summary: `${spec.summary} (asynchronous task)`,
      ...(spec.description ? { description: spec.description } : {}),
      security: [{ bearerAuth: [] }],
      "x-lifecycle": "preview",
      "x-capability": spec.capability,
      middleware: [requireKey("tasks:write"), requireIdempotencyHeader] as const,
      request: {
        headers: z.object({ "idempotency-key": z.string().optional().openapi({ description: "Required: 1 to 128 characters" }) }),
        body: { required: true, content: { "application/json": { schema: spec.schema } } },
      },
      responses: {
        202: { description: "The task, queued", content: { "application/json": { schema: TaskEnvelope } } },
        ...errorResponses(400, 401, 402, 403, 404, 409, 413, 422, 503),
      },
    }),
    async (c) => {
      const body = c.req.valid("json") as Record<string, unknown>;
      const raw = (await c.req.json()) as Record<string, unknown>;
      const result = await admitOperation(taskContext(c), spec, body, raw);
      return c.json(result.envelope as z.infer<typeof TaskEnvelope>, 202, result.headers ?? {});
    },
  );
}
