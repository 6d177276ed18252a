/** `media-api webhooks …`: the tenant's endpoints and the log of every delivery (a key with `webhooks:manage`). */
import { UsageError } from "./args.js";
import { type Ctx, one, print, query } from "./context.js";
import { table } from "./format.js";

export async function webhooks(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  switch (sub) {
    case "endpoints": {
      ctx.opts.done("webhooks endpoints");
      const list = await ctx.client.webhooks.endpoints.list();
      print(sctx, list, () => {
        const rows = list.data.map((e) => [e.endpoint_id, e.enabled ? "enabled" : "disabled", e.events.join(","), e.url]);
        return rows.length ? table(["endpoint_id", "state", "events", "url"], rows) : "no endpoints";
      });
      return 0;
    }
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
        sub ? `unknown webhooks command '${sub}'` : "webhooks needs endpoints, deliveries, delivery or resend",
      );
  }
}
