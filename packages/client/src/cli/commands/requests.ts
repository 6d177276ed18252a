/** `media-api requests list|show|replay`: the tenant's request log (`logs:read`) and running a call again (`tasks:write`). */
import type { ReplayResult, RequestDetail, RequestLogEntry } from "../../requests.js";
import { UsageError } from "../args.js";
import { type Ctx, one, print, query } from "../context.js";
import { table } from "../format.js";

export async function requests(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  switch (sub) {
    case "list": {
      if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
      const q = query(sctx, "listRequests");
      ctx.opts.done("requests list");
      const page = await ctx.client.requests.list(q);
      print(sctx, page, () => {
        const rows = page.data.map((e) => [
          e.request_id,
          e.created_at,
          e.route,
          e.status,
          e.error_code ?? "",
          e.model ?? "",
          credits(e),
          e.door,
        ]);
        const more = page.has_more ? `\nmore: media-api requests list --cursor ${page.next_cursor}` : "";
        return rows.length
          ? `${table(["request_id", "created_at", "route", "status", "error", "model", "credits", "door"], rows)}${more}`
          : "no requests";
      });
      return 0;
    }
    case "get":
    case "show": {
      const id = one(sctx, "request_id");
      ctx.opts.done(`requests ${sub}`);
      const detail = await ctx.client.requests.get(id);
      print(sctx, detail, () => describeRequest(detail));
      return 0;
    }
    case "replay": {
      const id = one(sctx, "request_id");
      const model = ctx.opts.string("model");
      const idempotencyKey = ctx.opts.string("idempotency-key");
      ctx.opts.done("requests replay");
      const result = await ctx.client.requests.replay(id, {
        ...(model ? { model } : {}),
        ...(idempotencyKey ? { idempotencyKey } : {}),
      });
      return printReplay(sctx, id, result);
    }
    default:
      throw new UsageError(
        sub ? `unknown requests command '${sub}'` : "requests takes list, get <request_id> (or show) or replay <request_id>",
      );
  }
}

function credits(e: RequestLogEntry): string {
  if (!e.credits) return "";
  return e.credits.settled ? e.credits.charged : `${e.credits.charged} (held)`;
}

/** `+1.2 s` from the request's arrival. */
function offset(from: string, at: string): string {
  const ms = Date.parse(at) - Date.parse(from);
  if (!Number.isFinite(ms)) return "";
  return Math.abs(ms) < 1000 ? `+${ms} ms` : `+${(ms / 1000).toFixed(1)} s`;
}

function span(ms: number | null): string {
  if (ms === null) return "still out";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The entry, then its attempts as a time line from the request's arrival. */
export function describeRequest(d: RequestDetail): string {
  const charge = d.credits
    ? `${d.credits.charged}${d.credits.settled ? "" : " held (the task has not settled; its final charge follows it)"}`
    : "none";
  const lines = [
    `request    ${d.request_id}${d.replay_of ? `  (replay of ${d.replay_of})` : ""}`,
    `route      ${d.route}  → ${d.status}${d.error_code ? ` ${d.error_code}` : ""}  in ${span(d.duration_ms)}`,
    `at         ${d.created_at}  via ${d.door}  key ${d.key_id} (${d.mode})`,
  ];
  if (d.model || d.task_id || d.batch_id)
    lines.push(
      `serves     ${[d.model && `model ${d.model}`, d.task_id && `task ${d.task_id}`, d.batch_id && `batch ${d.batch_id}`].filter(Boolean).join("  ")}`,
    );
  lines.push(`credits    ${charge}`);
  if (d.user_agent) lines.push(`user agent ${d.user_agent}`);
  lines.push("");
  if (d.attempts.length === 0) lines.push("no provider attempt");
  else {
    lines.push("attempts:");
    const rows = d.attempts.map((a) => [
      offset(d.created_at, a.started_at),
      `${a.provider}/${a.upstream_model}`,
      `${a.key} key`,
      a.outcome,
      a.http_status === null ? "" : `HTTP ${a.http_status}`,
      span(a.duration_ms),
      a.error ? `${a.error.code}: ${a.error.message}` : "",
    ]);
    lines.push(
      table(["at", "provider/model", "key", "outcome", "http", "took", "error"], rows)
        .split("\n")
        .map((l) => `  ${l}`)
        .join("\n"),
    );
  }
  if (d.request_body !== undefined && d.request_body !== null) lines.push("", "request body:", d.request_body);
  if (d.response_body !== undefined && d.response_body !== null) lines.push("", "response body:", d.response_body);
  return lines.join("\n");
}

async function printReplay(ctx: Ctx, original: string, r: ReplayResult): Promise<number> {
  const tail = `(request ${r.requestId ?? "?"}, replay of ${original})`;
  switch (r.kind) {
    case "task":
      print(
        ctx,
        r.task,
        () =>
          `${r.task.task_id}  ${r.task.status}  ${r.task.capability} on ${r.task.resolved_model}  ${tail}\nfollow it: media-api tasks wait ${r.task.task_id}`,
      );
      return 0;
    case "chat": {
      const message = (r.completion as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
      print(ctx, r.completion, () => `${typeof message === "string" ? message : JSON.stringify(r.completion)}\n${tail}`);
      return 0;
    }
    case "chat_stream": {
      // Text as it comes; with --json, each chunk as one line of JSON.
      for await (const chunk of r.stream) {
        if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(chunk)}\n`);
        else ctx.io.stdout.write(chunk.choices[0]?.delta.content ?? "");
      }
      if (!ctx.json) ctx.io.stdout.write(`\n${tail}\n`);
      return 0;
    }
  }
}
