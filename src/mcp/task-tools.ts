/**
 * The task tools: read, wait for, cancel and list the caller's tasks, over the same task reads
 * as GET /v1/tasks/{id}, `Prefer: wait`, POST /v1/tasks/{id}/cancel and GET /v1/tasks.
 */

import { z } from "@hono/zod-openapi";
import { taskNotFound } from "../errors/not-found";
import { TaskEnvelope } from "../services/contracts/task-envelope";
import { ListQuery, TaskPage } from "../services/contracts/task-list";
import type { TaskListQuery, TaskState } from "../services/tasks";
import {
  callerAuditBy,
  cancelTask,
  deleteTaskOutputs,
  type Envelope,
  followTask,
  keyScope,
  listTasks,
  readOwnTask,
  readTaskState,
  TERMINAL,
} from "../services/tasks";
import { dataResult, taskResult } from "./results";
import { READ_ONLY, type ToolContext, zodTool } from "./tool";
/** The longest a `wait_for_task` call holds: well inside the time MCP clients give a call. */
export const MAX_WAIT_SECONDS = 30;

const TaskId = z
  .string()
  .min(1)
  .max(200)
  .openapi({ description: "A task_id returned by a task-creating tool (or by the REST API)", example: `task_${"0".repeat(64)}` });

async function ownEnvelope(ctx: ToolContext, taskId: string): Promise<Envelope> {
  return (await readOwnTask(ctx.env, taskId, keyScope(ctx.caller))).envelope();
}

export const getTaskTool = zodTool({
  name: "get_task",
  title: "Get a task",
  description:
    "The current envelope of one of your tasks: status (queued, running, succeeded, failed, canceled), progress, error, and once succeeded its outputs as resource_link items with signed URLs (fresh on every read, valid at least 24 hours).",
  scopes: ["tasks:read"],
  annotations: READ_ONLY,
  input: z.object({ task_id: TaskId }).strict(),
  output: TaskEnvelope,
  run: async ({ task_id }, ctx) => taskResult(await ownEnvelope(ctx, task_id), ctx.origin),
});

/**
 * notifications/progress while waiting: `progress` is the task's percent (100 once it ends),
 * sent only when it has grown, since the protocol wants every notification to increase it.
 */
function progressReporter(ctx: ToolContext) {
  let sent = -1;
  return async (state: TaskState) => {
    if (!ctx.progress) return;
    const percent = TERMINAL.has(state.status) ? 100 : Math.max(0, Math.min(99, state.progress.percent));
    if (percent <= sent) return;
    sent = percent;
    // A client that stopped listening does not end the wait: the answer still goes out.
    await ctx.progress(percent, 100, `${state.status}: ${state.progress.message}`).catch(() => undefined);
  };
}

export const waitForTaskTool = zodTool({
  name: "wait_for_task",
  title: "Wait for a task",
  description: `Waits until one of your tasks is succeeded, failed or canceled, or until timeout_seconds (at most ${MAX_WAIT_SECONDS}) have passed, then answers with the task as it is (like get_task). Call it again while the status is still queued or running. Sends progress notifications when the call carries a progress token.`,
  scopes: ["tasks:read"],
  annotations: READ_ONLY,
  input: z
    .object({
      task_id: TaskId,
      timeout_seconds: z
        .number()
        .int()
        .min(0)
        .max(MAX_WAIT_SECONDS)
        .default(MAX_WAIT_SECONDS)
        .openapi({ description: `Seconds to wait at most, 0 to ${MAX_WAIT_SECONDS}; default ${MAX_WAIT_SECONDS}` }),
    })
    .strict(),
  output: TaskEnvelope,
  async run({ task_id, timeout_seconds }, ctx) {
    const scope = keyScope(ctx.caller);
    const first = await readTaskState(ctx.env, task_id, scope);
    if (!first) throw taskNotFound(task_id);
    const report = progressReporter(ctx);
    await followTask(() => readTaskState(ctx.env, task_id, scope), {
      first,
      until: Date.now() + timeout_seconds * 1000,
      signal: ctx.signal,
      onState: async (state) => {
        await report(state);
        return TERMINAL.has(state.status) || timeout_seconds === 0;
      },
    });
    return taskResult(await ownEnvelope(ctx, task_id), ctx.origin);
  },
});

export const cancelTaskTool = zodTool({
  name: "cancel_task",
  title: "Cancel a task",
  description:
    "Cancels one of your tasks: a queued task ends canceled with its credits released; a running one is stopped at the provider when it can be, else the error conflict says it continues (keep polling). A task already ended is answered as it is.",
  scopes: ["tasks:write"],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z.object({ task_id: TaskId, reason: z.string().max(500).optional() }).strict(),
  output: TaskEnvelope,
  run: async ({ task_id, reason }, ctx) =>
    taskResult(
      await cancelTask(ctx.env, task_id, keyScope(ctx.caller), reason ?? null, callerAuditBy(ctx.caller, ctx.from, ctx.actor)),
      ctx.origin,
    ),
});

export const deleteTaskOutputsTool = zodTool({
  name: "delete_task_outputs",
  title: "Delete a task's outputs",
  description:
    "Deletes the outputs of one of your tasks that has ended, now rather than when their retention ends (expires_at): the task stays, its artifacts marked expired with no URL. A task still queued or running is the error conflict.",
  scopes: ["tasks:write"],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z.object({ task_id: TaskId }).strict(),
  output: TaskEnvelope,
  run: async ({ task_id }, ctx) =>
    taskResult(
      await deleteTaskOutputs(ctx.env, task_id, keyScope(ctx.caller), callerAuditBy(ctx.caller, ctx.from, ctx.actor)),
      ctx.origin,
    ),
});

export const listTasksTool = zodTool({
  name: "list_tasks",
  title: "List tasks",
  description:
    "Your tasks, newest first, optionally filtered by status, capability and creation time; pass next_cursor back as cursor for the next page.",
  scopes: ["tasks:read"],
  annotations: READ_ONLY,
  input: ListQuery,
  output: TaskPage,
  async run(q, ctx) {
    const page = await listTasks(ctx.env, keyScope(ctx.caller), q as TaskListQuery);
    const lines = page.data.map((t) => `${t.task_id} ${t.status} ${t.capability} ${t.resolved_model} ${t.created_at}`);
    const more = page.has_more ? ` More with cursor "${page.next_cursor}".` : "";
    return dataResult(
      `${page.data.length} task${page.data.length === 1 ? "" : "s"}.${more}${lines.length ? `\n${lines.join("\n")}` : ""}`,
      { object: "list", data: page.data, has_more: page.has_more, next_cursor: page.next_cursor },
    );
  },
});
