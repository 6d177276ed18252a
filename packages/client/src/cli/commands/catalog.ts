/** `media-api models`, `capabilities` and `voices`: what the catalog offers. */
import { type Ctx, one, print, query } from "../context.js";
import { table } from "../format.js";

export async function models(ctx: Ctx): Promise<number> {
  ctx.opts.done("models");
  if (ctx.args.length) {
    const model = await ctx.client.models.get(one(ctx, "model"));
    ctx.io.stdout.write(`${JSON.stringify(model, null, 2)}\n`);
    return 0;
  }
  const list = await ctx.client.models.list();
  print(ctx, list, () =>
    table(
      ["model", "capabilities", "status", "available"],
      list.data.map((m) => [m.id, m.capabilities.join(","), m.status, m.available ? "yes" : "no"]),
    ),
  );
  return 0;
}

export async function capabilityCommand(ctx: Ctx): Promise<number> {
  ctx.opts.done("capabilities");
  if (ctx.args.length) {
    const detail = await ctx.client.catalog.getCapability(one(ctx, "capability"));
    ctx.io.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
    return 0;
  }
  const list = await ctx.client.catalog.listCapabilities();
  print(ctx, list, () =>
    table(
      ["capability", "endpoint", "status"],
      (list.data as Record<string, unknown>[]).map((c) => [c.capability as string, c.endpoint as string, c.status as string]),
    ),
  );
  return 0;
}

export async function voices(ctx: Ctx): Promise<number> {
  const q = query(ctx, "listVoices");
  ctx.opts.done("voices");
  const list = await ctx.client.voices.list(q);
  print(ctx, list, () =>
    table(
      ["voice_id", "name", "language", "gender", "category"],
      list.data.map((v) => [v.voice_id, v.display_name, v.language, v.gender, v.category]),
    ),
  );
  return 0;
}
