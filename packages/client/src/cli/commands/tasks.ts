/** `media-api tasks list|get|cancel|delete-outputs|deliver|wait`. */
import type { TaskEnvelope } from "../../types.js";
import { UsageError } from "../args.js";
import { type Ctx, one, print, query } from "../context.js";
import { table } from "../format.js";
import { describeWait } from "../progress.js";
import { finishTask, followTask } from "../tasks.js";

export async function tasks(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  switch (sub) {
    case "list": {
      const q = query(sctx, "listTasks");
      ctx.opts.done("tasks list");
      const page = await ctx.client.tasks.list(q as never);
      print(sctx, page, () => {
        const rows = page.data.map((t) => [t.task_id, t.status, t.capability, t.resolved_model, t.created_at]);
        const more = page.has_more ? `\nmore: media-api tasks list --cursor ${page.next_cursor}` : "";
        return rows.length ? `${table(["task_id", "status", "capability", "model", "created_at"], rows)}${more}` : "no tasks";
      });
      return 0;
    }
    case "get": {
      const id = one(sctx, "task_id");
      ctx.opts.done("tasks get");
      const task = await ctx.client.tasks.get(id);
      print(sctx, task, () => describeTask(task, (link) => ctx.client.transport.resolve(link)));
      return 0;
    }
    case "cancel": {
      const id = one(sctx, "task_id");
      const reason = ctx.opts.string("reason");
      ctx.opts.done("tasks cancel");
      const task = await ctx.client.tasks.cancel(id, reason ? { reason } : {});
      print(
        sctx,
        task,
        () =>
          `${task.task_id}  ${task.status}${task.cancel_requested_at ? `  (cancel requested ${task.cancel_requested_at})` : ""}`,
      );
      return 0;
    }
    case "delete-outputs": {
      const id = one(sctx, "task_id");
      ctx.opts.done("tasks delete-outputs");
      const task = await ctx.client.tasks.deleteOutputs(id);
      const n = task.output?.artifacts?.length ?? 0;
      print(sctx, task, () => `${task.task_id}  ${task.status}  ${n} output${n === 1 ? "" : "s"} deleted`);
      return 0;
    }
    case "deliver": {
      const id = one(sctx, "task_id");
      const destination = ctx.opts.string("destination");
      ctx.opts.done("tasks deliver");
      const task = await ctx.client.tasks.deliver(id, destination ? { destination_id: destination } : {});
      const d = task.delivery;
      print(sctx, task, () =>
        d
          ? `${task.task_id}  delivery ${d.status} to ${d.destination_id}${d.failed.map((f) => `\n  not delivered: ${f.key}: ${f.error}`).join("")}`
          : `${task.task_id}  no delivery`,
      );
      return d?.status === "failed" ? 1 : 0;
    }
    case "wait": {
      const id = one(sctx, "task_id");
      const out = ctx.opts.string("out");
      const timeout = ctx.opts.number("timeout");
      ctx.opts.done("tasks wait");
      const final = await followTask(ctx.client, id, {
        io: ctx.io,
        json: ctx.json,
        ...(timeout ? { timeoutMs: timeout * 1000 } : {}),
        interrupt: ctx.io.interrupt,
      });
      return finishTask(ctx.client, final, { io: ctx.io, json: ctx.json, ...(out ? { out } : {}) });
    }
    default:
      throw new UsageError("tasks takes list, get <id>, cancel <id>, wait <id>, deliver <id> or delete-outputs <id>");
  }
}

function describeTask(t: TaskEnvelope, resolve: (link: string) => string): string {
  const wait = describeWait(t.progress);
  const lines = [
    `task       ${t.task_id}`,
    `status     ${t.status}  ${t.progress.percent}%  ${[t.progress.stage, t.progress.message].filter(Boolean).join(": ")}${wait ? `  (${wait})` : ""}`,
    `capability ${t.capability}`,
    `model      ${t.model}${t.resolved_model && t.resolved_model !== t.model ? ` → ${t.resolved_model}` : ""}`,
    ...(t.models?.length ? [`models     ${t.models.join(", ")}`] : []),
    ...(t.model_fallbacks ?? []).map((f) => `passed     ${f.model} — ${f.reason}${f.message ? `: ${f.message}` : ""}`),
    `created    ${t.created_at}${t.completed_at ? `  completed ${t.completed_at}` : ""}`,
    `credits    charged ${t.billing.charged_credits}, net ${t.billing.net_charged_credits}`,
  ];
  for (const a of t.output?.artifacts ?? []) {
    const link = a.signed_url ?? a.url;
    const gone = a.expired ? "(expired)" : "(deleted)";
    const until = a.expires_at && !a.expired ? `  until ${a.expires_at}` : "";
    lines.push(`output ${a.index}   ${a.artifact_id}  ${a.content_type}  ${link ? resolve(link) : gone}${until}`);
  }
  const text = (t.output as { text?: unknown } | null)?.text;
  if (typeof text === "string") lines.push(`text       ${text}`);
  if (t.error) lines.push(`error      ${t.error.code}: ${t.error.message}`);
  return lines.join("\n");
}
