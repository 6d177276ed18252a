/** A batch's end: its output file, its status and its `batch.completed` event; later, the file's expiry. */
import { accountFor } from "../../accounts/account-stub";
import type { Env } from "../../env";
import { artifactKey } from "../../media/artifacts";
import { expiryAfter } from "../../retention/days";
import { DEFAULT_RETENTION_DAYS } from "../../tenancy/tenant-row";
import { recordEvent } from "../../webhooks/delivery-rows";
import type { BatchRow } from "../batch-record";
import type { BatchStore } from "../batch-store";
import { writeOutputFile } from "../output-file";
import { presentBatch } from "../present";

/**
 * Every item ended: the output file is written (its id is derived, so a second write replaces
 * the first), then the status, the `batch.completed` event and the callback's state in one write.
 * `messageId` names the callback's message (the same for every attempt).
 */
export async function finishBatch(env: Env, store: BatchStore, b: BatchRow, messageId: string): Promise<void> {
  // Kept as a task's outputs are: the tenant's retention from when it is stored, then deleted by this object's alarm.
  const days = (await accountFor(env, b.tenant_id).get())?.output_retention_days ?? DEFAULT_RETENTION_DAYS;
  const expiresAt = expiryAfter(Date.now(), days);
  const fileId = await writeOutputFile(env, b, store.sql, expiresAt);
  const now = new Date().toISOString();
  const done: BatchRow = {
    ...b,
    status: b.cancel_requested_at ? "canceled" : "completed",
    completed_at: now,
    output_file_id: fileId,
    output_expires_at: expiresAt,
    callback_state: b.callback
      ? {
          ...b.callback,
          status: "pending",
          attempt_count: 0,
          next_attempt_at: Date.now(),
          delivered_at: null,
          last_error: null,
          message_id: messageId,
        }
      : null,
  };
  // The event's data is the envelope as the end leaves it; it is written with the end, in one transaction.
  const envelope = await presentBatch(env, store, done);
  store.transaction(() => {
    store.sql.exec(
      "UPDATE batch SET status = ?, completed_at = ?, output_file_id = ?, output_expires_at = ?, callback_state = ? WHERE id = 1",
      done.status,
      now,
      fileId,
      expiresAt,
      done.callback_state ? JSON.stringify(done.callback_state) : null,
    );
    recordEvent(store.sql, "batch.completed", now, envelope);
  });
}

/** The output file's retention is over: its bytes are deleted; the envelope keeps its id and end, with no URL. */
export async function expireOutput(env: Env, store: BatchStore, b: BatchRow): Promise<void> {
  // A failed delete leaves the row as it was, so the next alarm tries again.
  await env.ARTIFACTS.delete(artifactKey(b.output_file_id as string));
  store.sql.exec("UPDATE batch SET output_expired_at = ? WHERE id = 1", new Date().toISOString());
}
