/**
 * One delivery attempt: each pending output read from R2 and written to the destination. Small
 * outputs are read whole and their SHA-256 signed; larger ones are streamed as UNSIGNED-PAYLOAD
 * (the store still checks the length, and the connection is HTTPS).
 */
import type { Env } from "../env";
import { artifactKey } from "../media/artifacts";
import type { DeliveryItem, ItemOutcome } from "./delivery";
import { putObject, type S3Target, SIGNED_PAYLOAD_MAX_BYTES } from "./s3";

/** S3 quotes its ETags; the envelope shows the value inside. */
const unquoted = (etag: string | null) => (etag ? etag.replace(/^W\//, "").replace(/^"|"$/g, "") : null);

export async function deliverItems(env: Env, target: S3Target, items: DeliveryItem[]): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = [];
  for (const item of items) {
    const stored = await env.ARTIFACTS.get(artifactKey(item.artifact_id));
    if (!stored) {
      outcomes.push({ index: item.index, ok: false, error: "the stored output no longer exists", retryable: false });
      continue;
    }
    const body =
      stored.size <= SIGNED_PAYLOAD_MAX_BYTES
        ? new Uint8Array(await stored.arrayBuffer())
        : { stream: stored.body, bytes: stored.size };
    const answer = await putObject(target, item.key, body, item.content_type);
    outcomes.push(
      answer.ok
        ? { index: item.index, ok: true, etag: unquoted(answer.etag) }
        : { index: item.index, ok: false, error: `${answer.code}: ${answer.message}`, retryable: answer.retryable },
    );
  }
  return outcomes;
}
