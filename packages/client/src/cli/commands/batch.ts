/** `media-api batch run|get|cancel`. */
import { UsageError } from "../args.js";
import { type BatchRunOptions, describeBatch, runBatch } from "../batch.js";
import { type Ctx, one, print } from "../context.js";

export async function batch(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  switch (sub) {
    case "run": {
      const file = one(sctx, "the JSON lines file");
      const o = {
        file,
        operation: ctx.opts.string("operation") ?? "",
        concurrency: ctx.opts.number("concurrency"),
        maxCredits: ctx.opts.string("max-credits"),
        out: ctx.opts.string("out"),
        idempotencyKey: ctx.opts.string("idempotency-key"),
        wait: !ctx.opts.has("no-wait"),
      };
      ctx.opts.done("batch run");
      const { batch: b, drawn } = await runBatch(ctx.client, o as BatchRunOptions, { ...ctx.io, json: ctx.json });
      // The outcome, unless the progress already ended on that very line.
      if (ctx.json) print(sctx, b, () => "");
      else if (describeBatch(b) !== drawn) ctx.io.stdout.write(`${describeBatch(b)}\n`);
      return b.status === "completed" && b.counts.failed === 0 && b.counts.canceled === 0 ? 0 : o.wait ? 1 : 0;
    }
    case "get":
    case "cancel": {
      const id = one(sctx, "batch_id");
      ctx.opts.done(`batch ${sub}`);
      const b = sub === "get" ? await ctx.client.batches.get(id) : await ctx.client.batches.cancel(id);
      print(sctx, b, () => `${b.batch_id}  ${describeBatch(b)}${b.output_file_id ? `\nresults: ${b.output_file_id}` : ""}`);
      return 0;
    }
    default:
      throw new UsageError(
        "batch needs a subcommand: run <file.jsonl> --operation <capability>, get <batch_id>, cancel <batch_id>",
      );
  }
}
