/** Writing a batch: its row once, its items in chunks, then the seal that makes it visible and starts it. */
import type { Caller } from "../../accounts/caller";
import type { BatchEnvelope, BatchRow } from "../batch-record";
import type { BatchStore } from "../batch-store";

export interface NewBatch {
  tenant_id: string;
  idempotency_key: string;
  request_hash: string;
  operation: BatchRow["operation"];
  caller: Caller;
  concurrency: number;
  max_credits: string | null;
  estimated_credits: string;
  callback: BatchRow["callback"];
  metadata: Record<string, string>;
  origin: string;
  request_id: string;
}

export interface NewItem {
  seq: number;
  custom_id: string;
  /** The item's create body as sent (JSON). */
  body: string;
  estimate: string;
}

export type BatchAdmission = { kind: "new" } | { kind: "replay"; envelope: BatchEnvelope } | { kind: "conflict" };

/** Writes the batch row unless one is there; answers what the creation found. */
export function beginBatch(store: BatchStore, batchId: string, b: NewBatch): BatchAdmission["kind"] {
  const existing = store.row();
  if (existing)
    return existing.request_hash === b.request_hash ? (existing.status === "admitting" ? "new" : "replay") : "conflict";
  store.sql.exec(
    `INSERT INTO batch (id, batch_id, tenant_id, mode, idempotency_key, request_hash, operation, caller, status, concurrency,
      max_credits, estimated_credits, charged_credits, refunded_credits, callback, callback_state, metadata, origin, request_id,
      created_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?, 'admitting', ?, ?, ?, '0', '0', ?, NULL, ?, ?, ?, ?)`,
    batchId,
    b.tenant_id,
    b.caller.mode,
    b.idempotency_key,
    b.request_hash,
    b.operation,
    JSON.stringify(b.caller),
    b.concurrency,
    b.max_credits,
    b.estimated_credits,
    b.callback ? JSON.stringify(b.callback) : null,
    JSON.stringify(b.metadata),
    b.origin,
    b.request_id,
    new Date().toISOString(),
  );
  return "new";
}

/** Items by their place in the batch: a retried admission writes the same rows again, which changes nothing. */
export function addBatchItems(store: BatchStore, items: NewItem[]): void {
  store.transaction(() => {
    let added = 0;
    for (const i of items) {
      store.sql.exec(
        "INSERT OR IGNORE INTO items (seq, custom_id, body, estimate, status, reserved, refunded) VALUES (?, ?, ?, ?, 'queued', '0', '0')",
        i.seq,
        i.custom_id,
        i.body,
        i.estimate,
      );
      added += store.changes();
    }
    store.tally(null, "queued", added);
  });
}

/** Every item written: the batch leaves admission and its alarm starts it. */
export async function sealBatch(store: BatchStore, total: number): Promise<void> {
  if (store.counts().total !== total) throw new Error(`batch has ${store.counts().total} items, expected ${total}`);
  store.sql.exec("UPDATE batch SET status = 'queued' WHERE id = 1");
  await store.wake();
}
