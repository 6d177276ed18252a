/** `media-api quotes create <operation>`: a binding price for a create's body, without creating it. */
import { operationForCapability } from "../../client.js";
import { UsageError } from "../args.js";
import { type Ctx, print } from "../context.js";
import { capabilities } from "../help.js";
import { buildCreateBody, describeQuote } from "./generate.js";

export async function quotes(ctx: Ctx): Promise<number> {
  const [sub, operation, ...extra] = ctx.args;
  if (sub !== "create") throw new UsageError(sub ? `unknown quotes command '${sub}'` : "quotes takes create <operation>");
  if (!operation) throw new UsageError(`quotes create needs an operation: ${capabilities().join(", ")}`);
  if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}' (quote the prompt: --prompt "…")`);
  const id = operationForCapability(operation);
  if (!id) throw new UsageError(`unknown operation '${operation}'; one of: ${capabilities().join(", ")}`);
  const body = await buildCreateBody(ctx, id, operation);
  const q = await ctx.client.quote(operation, body);
  print(
    ctx,
    q,
    () => `${describeQuote(q)}\ncreate under it: media-api generate ${operation} … --set quote_id=${q.quote_id} (the same body)`,
  );
  return 0;
}
