/** `media-api upload`, `download` and `artifacts delete`. */
import { stat } from "node:fs/promises";
import { extensionFor } from "../../media-types.js";
import { UsageError } from "../args.js";
import { type Ctx, one, print } from "../context.js";
import { mediaFacts } from "../format.js";

export async function upload(ctx: Ctx): Promise<number> {
  ctx.opts.done("upload");
  if (!ctx.args.length) throw new UsageError("upload needs at least one file");
  for (const file of ctx.args) {
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) throw new UsageError(`${file}: no such file`);
  }
  const results = [];
  for (const file of ctx.args) {
    const a = await ctx.client.uploads.fromFile(file);
    results.push(a);
    if (!ctx.json) {
      const facts = [
        a.kind,
        a.content_type,
        `${a.bytes} bytes`,
        a.width && a.height ? `${a.width}×${a.height}` : "",
        a.duration_seconds ? `${a.duration_seconds} s` : "",
      ];
      ctx.io.stdout.write(`${a.artifact_id}  ${facts.filter(Boolean).join(" · ")}  ${file}\n`);
    }
  }
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(results.length === 1 ? results[0] : results, null, 2)}\n`);
  return 0;
}

export async function download(ctx: Ctx): Promise<number> {
  const out = ctx.opts.string("out");
  ctx.opts.done("download");
  const id = one(ctx, "artifact_id");
  const { join, dirname } = await import("node:path");
  const { rename } = await import("node:fs/promises");
  // --out names the file, or the folder to save <artifact_id>.<ext> in (default: here).
  const isDir = !out || !!(await stat(out).catch(() => null))?.isDirectory();
  const temp = isDir ? join(out ?? ".", `${id}.download`) : join(dirname(out), `.${id}.download`);
  const saved = await ctx.client.artifacts.download(id, temp);
  const path = isDir ? join(out ?? ".", `${id}.${extensionFor(saved.contentType)}`) : (out as string);
  await rename(temp, path);
  print(
    ctx,
    { path, artifact_id: id, content_type: saved.contentType, bytes: saved.bytes },
    () => `saved ${path} (${mediaFacts({ content_type: saved.contentType, bytes: saved.bytes })})`,
  );
  return 0;
}

export async function artifacts(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  if (sub !== "delete") throw new UsageError("artifacts takes delete <artifact_id>");
  const id = one({ ...ctx, args: rest }, "artifact_id");
  ctx.opts.done("artifacts delete");
  await ctx.client.artifacts.delete(id);
  print(ctx, { artifact_id: id, deleted: true }, () => `deleted ${id}`);
  return 0;
}
