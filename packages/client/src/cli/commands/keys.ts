/** `media-api keys list|get|create|update|rotate|revoke`: the tenant's API keys (a key with `keys:manage`). */
import { OPERATIONS } from "../../generated/operations.js";
import type { OperationRow } from "../../operation-row.js";
import type { ResultOf } from "../../types.js";
import { UsageError } from "../args.js";
import { bodyFromFlags } from "../body.js";
import { type Ctx, one, print, query } from "../context.js";
import { table } from "../format.js";

type IssuedKey = ResultOf<"createKey">;
type KeyRecord = ResultOf<"getKey">;

/** A new key, with its secret and the warning that it is shown only now. */
export function describeIssued(k: IssuedKey, what = "created"): string {
  return [
    `${k.key_id}  ${what}  ${k.mode}${k.name ? `  "${k.name}"` : ""}`,
    `api key    ${k.api_key}`,
    "           (shown only now: keep it somewhere safe)",
    `permissions ${k.permissions.join(", ")}`,
    ...(k.limits ? [`limits     ${limitsText(k.limits)}`] : []),
  ].join("\n");
}

function limitsText(l: NonNullable<KeyRecord["limits"]>): string {
  return [
    l.credits !== undefined ? `${l.credits} credits per ${l.period}` : `period ${l.period}`,
    l.models ? `models ${l.models.join(", ")}` : "",
    l.capabilities ? `capabilities ${l.capabilities.join(", ")}` : "",
  ]
    .filter(Boolean)
    .join(" · ");
}

function describeKey(k: KeyRecord): string {
  const spend = (k as Partial<ResultOf<"getKey">>).spent_credits;
  return [
    `key        ${k.key_id}${k.name ? `  "${k.name}"` : ""}`,
    `status     ${k.status}  ${k.mode}  ${k.prefix ?? ""}…`,
    `permissions ${k.permissions.join(", ")}`,
    `limits     ${k.limits ? limitsText(k.limits) : "none"}`,
    ...(spend !== undefined
      ? [`spent      ${spend} credits (reserved ${k.reserved_credits}, remaining ${k.remaining_credits ?? "no limit"})`]
      : []),
    `created    ${k.created_at}${k.created_by ? ` by ${k.created_by}` : ""}${k.last_used_at ? `  last used ${k.last_used_at}` : ""}`,
    ...(k.expires_at ? [`expires    ${k.expires_at}${k.replaced_by ? `  (replaced by ${k.replaced_by})` : ""}`] : []),
    ...(k.revoked_at ? [`revoked    ${k.revoked_at}`] : []),
  ].join("\n");
}

export async function keys(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  switch (sub) {
    case "list": {
      if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
      const q = query(sctx, "listKeys");
      ctx.opts.done("keys list");
      const page = await ctx.client.keys.list(q as never);
      print(sctx, page, () => {
        const rows = page.data.map((k) => [k.key_id, k.name ?? "", k.mode, k.status, k.prefix ?? "", k.last_used_at ?? "never"]);
        const more = page.has_more ? `\nmore: media-api keys list --cursor ${page.next_cursor}` : "";
        return rows.length ? `${table(["key_id", "name", "mode", "status", "prefix", "last used"], rows)}${more}` : "no keys";
      });
      return 0;
    }
    case "get": {
      const id = one(sctx, "key_id");
      ctx.opts.done("keys get");
      const k = await ctx.client.keys.get(id);
      print(sctx, k, () => describeKey(k));
      return 0;
    }
    case "create": {
      if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}' (name the key with --name)`);
      const body = await bodyFromFlags(ctx.opts, OPERATIONS.createKey as OperationRow, "keys create");
      const k = await ctx.client.keys.create(body as never);
      print(sctx, k, () => describeIssued(k));
      return 0;
    }
    case "update": {
      const id = one(sctx, "key_id");
      const body = await bodyFromFlags(ctx.opts, OPERATIONS.updateKey as OperationRow, "keys update");
      if (Object.keys(body).length === 0)
        throw new UsageError("keys update needs a change: --name, --limits.credits, --disabled …");
      const k = await ctx.client.keys.update(id, body as never);
      print(sctx, k, () => describeKey(k as KeyRecord));
      return 0;
    }
    case "rotate": {
      // A tenant's key cannot be rotated in place by another key: a new key with the same name,
      // permissions, mode and limits is created, then the old one is revoked (unless --keep-old).
      const id = one(sctx, "key_id");
      const keepOld = ctx.opts.flag("keep-old");
      ctx.opts.done("keys rotate");
      const old = await ctx.client.keys.get(id);
      if (old.status === "revoked") throw new UsageError(`${id} is revoked: create a new key instead (media-api keys create)`);
      const limits = old.limits
        ? {
            period: old.limits.period,
            ...(old.limits.credits !== undefined ? { credits: old.limits.credits } : {}),
            ...(old.limits.models ? { models: old.limits.models } : {}),
            ...(old.limits.capabilities ? { capabilities: old.limits.capabilities } : {}),
          }
        : null;
      const issued = await ctx.client.keys.create({
        ...(old.name ? { name: old.name } : {}),
        permissions: old.permissions,
        mode: old.mode,
        ...(limits ? { limits } : {}),
      } as never);
      const revoked = keepOld ? null : await ctx.client.keys.revoke(id);
      print(
        sctx,
        { key: issued, replaces: id, revoked },
        () =>
          `${describeIssued(issued, `replaces ${id}`)}\n${
            revoked ? `${id} revoked` : `${id} still works: revoke it once nothing uses it (media-api keys revoke ${id})`
          }`,
      );
      return 0;
    }
    case "revoke": {
      const id = one(sctx, "key_id");
      ctx.opts.done("keys revoke");
      const k = await ctx.client.keys.revoke(id);
      print(sctx, k, () => `${k.key_id}  ${k.status}${k.revoked_at ? ` at ${k.revoked_at}` : ""}`);
      return 0;
    }
    default:
      throw new UsageError(
        sub
          ? `unknown keys command '${sub}'`
          : "keys takes list, get <key_id>, create, update <key_id>, rotate <key_id> or revoke <key_id>",
      );
  }
}
