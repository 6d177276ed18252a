/** `media-api status`: the health of every provider and model (no key needed). */
import { UsageError } from "../args.js";
import { type Ctx, print } from "../context.js";
import { table } from "../format.js";

export async function status(ctx: Ctx): Promise<number> {
  ctx.opts.done("status");
  if (ctx.args.length) throw new UsageError(`unexpected argument '${ctx.args[0]}'`);
  const s = await ctx.client.status.get();
  print(ctx, s, () => {
    const r = s as unknown as {
      state: string;
      generated_at: string;
      providers: { provider: string; state: string; open_circuits?: unknown[] }[];
      models: { model: string; state: string }[];
      open_circuits: unknown[];
      incidents: { provider: string; upstream_model: string; started_at: string; ended_at: string | null; what_failed: string }[];
    };
    const lines = [`${r.state} · as of ${r.generated_at} · ${r.open_circuits.length} open circuit(s)`, ""];
    lines.push(
      table(
        ["provider", "state"],
        r.providers.map((p) => [p.provider, p.state]),
      ),
    );
    const troubled = r.models.filter((m) => m.state !== "operational");
    lines.push(
      "",
      troubled.length
        ? table(
            ["model", "state"],
            troubled.map((m) => [m.model, m.state]),
          )
        : `every model operational (${r.models.length})`,
    );
    if (r.incidents.length) {
      lines.push("", "incidents:");
      for (const i of r.incidents)
        lines.push(
          `  ${i.started_at}${i.ended_at ? ` – ${i.ended_at}` : " (ongoing)"}  ${i.provider}/${i.upstream_model}  ${i.what_failed}`,
        );
    }
    return lines.join("\n");
  });
  return 0;
}
