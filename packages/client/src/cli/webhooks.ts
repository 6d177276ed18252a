/** `media-api webhooks …`: the tenant's endpoints and the log of every delivery (a key with `webhooks:manage`). */
import { OPERATIONS } from "../generated/operations.js";
import type { OperationRow } from "../operation-row.js";
import type { ResultOf } from "../types.js";
import { UsageError } from "./args.js";
import { bodyFromFlags } from "./body.js";
import { type Ctx, one, print, query } from "./context.js";
import { table } from "./format.js";

export async function webhooks(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  switch (sub) {
    case "endpoints":
      return endpoints(sctx);
    case "deliveries": {
      const q = query(sctx, "listWebhookDeliveries");
      ctx.opts.done("webhooks deliveries");
      const page = await ctx.client.webhooks.deliveries.list(q as never);
      print(sctx, page, () => {
        const rows = page.data.map((d) => [
          d.delivery_id,
          d.status,
          d.event_type,
          d.target === "callback" ? "callback" : d.endpoint_id,
          d.task_id ?? "",
          d.created_at,
        ]);
        const more = page.has_more ? `\nmore: media-api webhooks deliveries --cursor ${page.next_cursor}` : "";
        return rows.length
          ? `${table(["delivery_id", "status", "event", "target", "task_id", "created_at"], rows)}${more}`
          : "no deliveries";
      });
      return 0;
    }
    case "delivery":
    case "resend": {
      const id = one(sctx, "delivery_id");
      ctx.opts.done(`webhooks ${sub}`);
      const d = sub === "resend" ? await ctx.client.webhooks.deliveries.resend(id) : await ctx.client.webhooks.deliveries.get(id);
      print(sctx, d, () => {
        const head = `${d.delivery_id}  ${d.status}  ${d.event_type} → ${d.target === "callback" ? "callback" : d.endpoint_id}${
          d.next_attempt_at ? `  (next attempt ${d.next_attempt_at})` : ""
        }`;
        const rows = d.attempts.map((a) => [a.attempt, a.attempted_at, a.http_status ?? "-", a.duration_ms, a.error ?? ""]);
        return rows.length ? `${head}\n${table(["#", "attempted_at", "http", "ms", "error"], rows)}` : `${head}\nno attempt yet`;
      });
      return 0;
    }
    default:
      throw new UsageError(
        sub ? `unknown webhooks command '${sub}'` : "webhooks takes endpoints …, deliveries, delivery <id> or resend <id>",
      );
  }
}

type Endpoint = ResultOf<"getWebhookEndpoint">;

function describeEndpoint(e: Endpoint): string {
  return `${e.endpoint_id}  ${e.enabled ? "enabled" : "disabled"}  ${e.url}\n  events ${e.events.join(", ")}${
    e.description ? `\n  ${e.description}` : ""
  }`;
}

/** The secret that signs the endpoint's deliveries, shown only in this answer. */
function secretLines(secret: string | undefined, extra = ""): string {
  return secret ? `\nsecret     ${secret}\n           (shown only now: verify deliveries with it${extra})` : "";
}

/** `media-api webhooks endpoints [list|get|create|update|rotate-secret|test|delete]` (no subcommand: list). */
async function endpoints(ctx: Ctx): Promise<number> {
  const [sub = "list", ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  const api = ctx.client.webhooks.endpoints;
  switch (sub) {
    case "list": {
      if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
      ctx.opts.done("webhooks endpoints list");
      const list = await api.list();
      print(sctx, list, () => {
        const rows = list.data.map((e) => [e.endpoint_id, e.enabled ? "enabled" : "disabled", e.events.join(","), e.url]);
        return rows.length ? table(["endpoint_id", "state", "events", "url"], rows) : "no endpoints";
      });
      return 0;
    }
    case "get": {
      const id = one(sctx, "endpoint_id");
      ctx.opts.done("webhooks endpoints get");
      const e = await api.get(id);
      print(sctx, e, () => describeEndpoint(e));
      return 0;
    }
    case "create": {
      if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}' (give the address with --url)`);
      const body = await bodyFromFlags(ctx.opts, OPERATIONS.createWebhookEndpoint as OperationRow, "webhooks endpoints create");
      const e = await api.create(body as never);
      const secret = (e as { secret?: string }).secret;
      print(sctx, e, () => `${describeEndpoint(e as Endpoint)}${secretLines(secret)}`);
      return 0;
    }
    case "update": {
      const id = one(sctx, "endpoint_id");
      const body = await bodyFromFlags(ctx.opts, OPERATIONS.updateWebhookEndpoint as OperationRow, "webhooks endpoints update");
      if (Object.keys(body).length === 0)
        throw new UsageError(
          "webhooks endpoints update needs a change: --url, --events, --description, --enabled or --no-enabled",
        );
      const e = await api.update(id, body as never);
      print(sctx, e, () => describeEndpoint(e));
      return 0;
    }
    case "rotate-secret": {
      const id = one(sctx, "endpoint_id");
      const body = await bodyFromFlags(
        ctx.opts,
        OPERATIONS.rotateWebhookEndpointSecret as OperationRow,
        "webhooks endpoints rotate-secret",
      );
      const r = await api.rotateSecret(id, body as never);
      const x = r as { secret?: string; previous_secret_valid_until?: string | null };
      print(
        sctx,
        r,
        () =>
          `${id}  secret rotated${secretLines(
            x.secret,
            x.previous_secret_valid_until ? `; the previous one also signs until ${x.previous_secret_valid_until}` : "",
          )}`,
      );
      return 0;
    }
    case "test": {
      const id = one(sctx, "endpoint_id");
      ctx.opts.done("webhooks endpoints test");
      const d = await api.test(id);
      print(sctx, d, () => {
        const last = d.attempts[d.attempts.length - 1];
        const outcome = last
          ? `HTTP ${last.http_status ?? "-"} in ${last.duration_ms} ms${last.error ? ` (${last.error})` : ""}`
          : "no attempt yet";
        return `${d.delivery_id}  ${d.status}  ${d.event_type} → ${id}: ${outcome}`;
      });
      return d.status === "failed" ? 1 : 0;
    }
    case "delete": {
      const id = one(sctx, "endpoint_id");
      ctx.opts.done("webhooks endpoints delete");
      const gone = await api.delete(id);
      print(sctx, gone, () => `${id}  deleted`);
      return 0;
    }
    default:
      throw new UsageError(
        `unknown webhooks endpoints command '${sub}': list, get, create, update, rotate-secret, test or delete`,
      );
  }
}
