/** `media-api provider-keys list|put|remove`: the tenant's own provider keys (a key with `providers:manage`). */
import { OPERATIONS } from "../../generated/operations.js";
import type { OperationRow } from "../../operation-row.js";
import { UsageError } from "../args.js";
import { bodyFromFlags } from "../body.js";
import { type Ctx, one, print } from "../context.js";
import { table } from "../format.js";

export async function providerKeys(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  switch (sub) {
    case "list": {
      if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
      ctx.opts.done("provider-keys list");
      const list = await ctx.client.providerKeys.list();
      print(sctx, list, () => {
        const rows = list.data.map((k) => [
          k.provider,
          k.mode,
          k.status,
          `…${k.last4}`,
          k.models ? k.models.join(",") : "every model",
          k.last_used_at ?? "never",
        ]);
        return rows.length ? table(["provider", "mode", "status", "key", "models", "last used"], rows) : "no provider keys";
      });
      return 0;
    }
    case "put": {
      const provider = one(sctx, "the provider");
      // The provider's key is --key (--api-key is the gateway's own key, as for every command).
      const key = ctx.opts.string("key");
      const body = await bodyFromFlags(ctx.opts, OPERATIONS.setProviderKey as OperationRow, "provider-keys put");
      if (key !== undefined) body.api_key = key;
      if (body.mode === undefined) body.mode = "prefer";
      const k = await ctx.client.providerKeys.set(provider, body as never);
      print(sctx, k, () =>
        [
          `${k.provider}  ${k.status}  ${k.mode}  key …${k.last4}${k.status_reason ? `  (${k.status_reason})` : ""}`,
          ...(k.warnings ?? []).map((w) => `  warning ${w.code}: ${w.message}`),
        ].join("\n"),
      );
      return 0;
    }
    case "remove": {
      const provider = one(sctx, "the provider");
      ctx.opts.done("provider-keys remove");
      const gone = await ctx.client.providerKeys.delete(provider);
      print(sctx, gone, () => `${gone.provider}  removed: its tasks use the platform's key again`);
      return 0;
    }
    default:
      throw new UsageError(
        sub
          ? `unknown provider-keys command '${sub}'`
          : "provider-keys takes list, put <provider> --key <its key> [--mode prefer|fallback|only] or remove <provider>",
      );
  }
}
