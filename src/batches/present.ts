/** A batch row as the API answers it: the totals, and a signed URL while the output file is kept. */
import type { Env } from "../env";
import { outputUrlExpiry, signOutputUrl } from "../media/signed-outputs";
import { type BatchEnvelope, type BatchRow, batchEnvelope } from "./batch-record";
import type { BatchStore } from "./batch-store";

/** Whether the output file's retention is over and its bytes not yet deleted. */
export function outputDue(b: BatchRow, nowMs: number): boolean {
  return (
    b.output_file_id !== null && b.output_expires_at !== null && !b.output_expired_at && Date.parse(b.output_expires_at) <= nowMs
  );
}

export async function presentBatch(env: Env, store: BatchStore, b: BatchRow): Promise<BatchEnvelope> {
  const live = b.output_file_id && !b.output_expired_at && !outputDue(b, Date.now());
  const url = live
    ? await signOutputUrl(env, b.origin, b.output_file_id as string, outputUrlExpiry(Date.now())).catch(() => null)
    : null;
  return batchEnvelope(b, store.counts(b), url);
}
