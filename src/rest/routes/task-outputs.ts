/** `DELETE /v1/tasks/{task_id}/outputs`: a terminal task's outputs deleted before their retention ends (src/retention). */
import { z } from "@hono/zod-openapi";
import { newRouter } from "../../http/context";
import { requestFrom } from "../../services/contracts/request-from";
import { TaskEnvelope } from "../../services/contracts/task-envelope";
import { callerAuditBy, deleteTaskOutputs, keyScope } from "../../services/tasks";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const TaskPath = z.object({ task_id: z.string().openapi({ example: `task_${"0".repeat(64)}` }) });

export const taskOutputRoutes = newRouter();

declare(
  taskOutputRoutes,
  {
    method: "delete",
    path: "/v1/tasks/{task_id}/outputs",
    operationId: "deleteTaskOutputs",
    tags: ["Tasks"],
    summary: "Delete a terminal task's outputs now",
    description:
      "Deletes every output artifact of a succeeded, failed or canceled task at once, before its `expires_at`. The task stays: its envelope lists each artifact with `expired: true` and no `url` or `signed_url`, and every link to one answers 404 `artifact_not_found`. Deleting again answers the same envelope. A task that has not ended is 409 `conflict` (`details.action`: `wait_until_terminal`).",
    security: [{ bearerAuth: [] }],
    "x-lifecycle": "preview",
    permission: "tasks:write",
    request: { params: TaskPath },
    responses: {
      200: { description: "The task, its outputs deleted", content: { "application/json": { schema: TaskEnvelope } } },
      ...errorResponses(400, 401, 403, 404, 409),
    },
  },
  async (c) => {
    const { task_id } = c.req.valid("param");
    const caller = c.get("caller");
    const envelope = await deleteTaskOutputs(c.env, task_id, keyScope(caller), callerAuditBy(caller, requestFrom(c.req.raw)));
    return c.json(envelope as z.infer<typeof TaskEnvelope>, 200);
  },
);
