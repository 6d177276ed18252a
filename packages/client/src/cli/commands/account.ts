/** `media-api balance` and `usage`. */
import { type Ctx, print, query } from "../context.js";
import { table } from "../format.js";

export async function balance(ctx: Ctx): Promise<number> {
  ctx.opts.done("balance");
  const b = await ctx.client.balance.get();
  print(
    ctx,
    b,
    () => `available ${b.available_credits} credits · reserved ${b.reserved_credits} · ${b.mode} key · as of ${b.as_of}`,
  );
  return 0;
}

export async function usage(ctx: Ctx): Promise<number> {
  const q = query(ctx, "getUsage");
  ctx.opts.done("usage");
  const u = await ctx.client.usage.get(q as never);
  // Its scalar fields, then each of its lists as a table of the rows' scalar columns.
  print(ctx, u, () => {
    const entries = Object.entries(u as Record<string, unknown>);
    const scalars = entries.filter(([, v]) => v === null || typeof v !== "object").map(([k, v]) => `${k}: ${v}`);
    const tables = entries
      .filter((e): e is [string, Record<string, unknown>[]] => Array.isArray(e[1]) && e[1].length > 0)
      .map(([name, rows]) => {
        const head = Object.keys(rows[0] ?? {}).filter((k) => rows.every((r) => r[k] === null || typeof r[k] !== "object"));
        return `\n${name}:\n${table(
          head,
          rows.map((r) => head.map((h) => r[h] as string)),
        )}`;
      });
    const objects = entries
      .filter((e): e is [string, Record<string, unknown>] => !!e[1] && typeof e[1] === "object" && !Array.isArray(e[1]))
      .map(
        ([name, o]) =>
          `${name}: ${Object.entries(o)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ")}`,
      );
    return [...scalars, ...objects].join("\n") + tables.join("");
  });
  return 0;
}
