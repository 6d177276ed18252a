/** A listing of the caller's tasks: the query every door accepts and the page it answers. */
import { z } from "@hono/zod-openapi";
import { CAPABILITIES } from "../../catalog/schema";
import { TASK_STATUSES } from "../../task-record/record";
import { TaskEnvelope } from "./task-envelope";

export const ListQuery = z
  .object({
    status: z.enum(TASK_STATUSES as [string, ...string[]]).optional(),
    capability: z.enum(CAPABILITIES).optional(),
    created_after: z.string().optional().openapi({ description: "ISO 8601 date-time (exclusive)" }),
    created_before: z.string().optional().openapi({ description: "ISO 8601 date-time (exclusive)" }),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(512).optional(),
    batch_id: z.string().max(128).optional().openapi({ description: "Only the tasks of this batch, in item order" }),
  })
  .strict();

export const TaskPage = z
  .object({ object: z.literal("list"), data: z.array(TaskEnvelope), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .openapi("TaskPage");
