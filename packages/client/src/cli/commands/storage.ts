/**
 * `media-api storage-destinations list|get|create|update|delete|test`: the tenant's own
 * S3-compatible buckets that outputs are delivered to (a key with `storage:manage`).
 */
import { OPERATIONS } from "../../generated/operations.js";
import type { OperationRow } from "../../operation-row.js";
import type { ResultOf } from "../../types.js";
import { UsageError } from "../args.js";
import { bodyFromFlags } from "../body.js";
import { type Ctx, one, print } from "../context.js";
import { table } from "../format.js";

type Destination = ResultOf<"getStorageDestination">;

function describe(d: Destination): string {
  return [
    `${d.destination_id}${d.default ? "  (default)" : ""}`,
    `  ${d.endpoint}  bucket ${d.bucket}  region ${d.region}${d.prefix ? `  prefix ${d.prefix}` : ""}${d.path_style ? "  path-style" : ""}`,
    `  key …${d.access_key_id_last4} / …${d.secret_access_key_last4}  verified ${d.verified_at}`,
  ].join("\n");
}

export async function storageDestinations(ctx: Ctx): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const sctx = { ...ctx, args: rest };
  const api = ctx.client.storageDestinations;
  switch (sub) {
    case "list": {
      if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
      ctx.opts.done("storage-destinations list");
      const list = await api.list();
      print(sctx, list, () => {
        const rows = list.data.map((d) => [
          d.destination_id,
          d.default ? "yes" : "",
          d.endpoint,
          d.bucket,
          d.prefix,
          d.verified_at,
        ]);
        return rows.length
          ? table(["destination_id", "default", "endpoint", "bucket", "prefix", "verified"], rows)
          : "no storage destinations";
      });
      return 0;
    }
    case "get": {
      const id = one(sctx, "destination_id");
      ctx.opts.done("storage-destinations get");
      const d = await api.get(id);
      print(sctx, d, () => describe(d));
      return 0;
    }
    case "create": {
      if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
      const body = await bodyFromFlags(
        ctx.opts,
        OPERATIONS.createStorageDestination as OperationRow,
        "storage-destinations create",
      );
      const d = await api.create(body as never);
      print(sctx, d, () => `${describe(d)}\ncreated: a probe object was written and deleted`);
      return 0;
    }
    case "update": {
      const id = one(sctx, "destination_id");
      const body = await bodyFromFlags(
        ctx.opts,
        OPERATIONS.updateStorageDestination as OperationRow,
        "storage-destinations update",
      );
      const d = await api.update(id, body as never);
      print(sctx, d, () => describe(d));
      return 0;
    }
    case "delete": {
      const id = one(sctx, "destination_id");
      ctx.opts.done("storage-destinations delete");
      const gone = await api.delete(id);
      print(sctx, gone, () => `${gone.destination_id}  deleted: nothing more is delivered to it`);
      return 0;
    }
    case "test": {
      // The API verifies a destination once, when it is created; a test writes a real task's
      // outputs to it again (POST /v1/tasks/{task_id}/deliveries) and says what arrived.
      const id = one(sctx, "destination_id");
      const task = ctx.opts.string("task");
      ctx.opts.done("storage-destinations test");
      const d = await api.get(id);
      if (!task) {
        print(
          sctx,
          { destination: d, delivery: null },
          () =>
            `${describe(d)}\nverified when it was created (${d.verified_at}); to write to it now: media-api storage-destinations test ${id} --task <task_id>`,
        );
        return 0;
      }
      const envelope = await ctx.client.tasks.deliver(task, { destination_id: id });
      const delivery = envelope.delivery;
      print(sctx, { destination: d, delivery }, () => {
        if (!delivery) return `${task}: no delivery was made`;
        const written = (envelope.output?.artifacts ?? []).flatMap((a) =>
          ((a as { delivered?: { destination_id: string; key: string; bytes: number }[] }).delivered ?? [])
            .filter((c) => c.destination_id === id)
            .map((c) => `  wrote ${c.key} (${c.bytes} bytes)`),
        );
        const failed = delivery.failed.map((f) => `  not written: ${f.key}: ${f.error ?? "?"}`);
        return [`${id}  delivery ${delivery.status} of ${task}`, ...written, ...failed].join("\n");
      });
      return delivery?.status === "failed" ? 1 : 0;
    }
    default:
      throw new UsageError(
        sub
          ? `unknown storage-destinations command '${sub}'`
          : "storage-destinations takes list, get <id>, create --endpoint … --bucket … , update <id> --default, delete <id> or test <id> [--task <task_id>]",
      );
  }
}
