/** Pages read from a batch object: a batch's items, and a tenant's batches (in index objects). */
import type { ItemStatus } from "./batch-record";

export interface ItemPage {
  data: { custom_id: string; task_id: string | null; status: ItemStatus; error_json: string | null }[];
  last: number | null;
  has_more: boolean;
}

export interface ItemQuery {
  status?: ItemStatus;
  after?: number;
  limit: number;
  started?: boolean;
}

/** Items in batch order after `after` (a seq), optionally of one status. */
export function itemPage(sql: SqlStorage, q: ItemQuery): ItemPage {
  const rows = sql
    .exec<{ seq: number; custom_id: string; task_id: string | null; status: ItemStatus; error: string | null }>(
      `SELECT seq, custom_id, task_id, status, error FROM items WHERE seq > ? ${q.status ? "AND status = ?" : ""}
        ${q.started ? "AND task_id IS NOT NULL" : ""} ORDER BY seq LIMIT ?`,
      ...[q.after ?? -1, ...(q.status ? [q.status] : []), q.limit + 1],
    )
    .toArray();
  const page = rows.slice(0, q.limit);
  return {
    // The error as stored (JSON text): the door parses it, so the answer stays a plain RPC value.
    data: page.map((r) => ({ custom_id: r.custom_id, task_id: r.task_id, status: r.status, error_json: r.error })),
    last: page.length > 0 ? (page[page.length - 1]?.seq ?? null) : null,
    has_more: rows.length > q.limit,
  };
}

export type IndexEntry = { batch_id: string; created_at: string };

/** Lists a batch in this index (once). */
export function indexBatch(sql: SqlStorage, batchId: string, createdAt: string): void {
  sql.exec("INSERT OR IGNORE INTO batch_index (batch_id, created_at) VALUES (?, ?)", batchId, createdAt);
}

/** Newest first, after the position of the last batch shown. */
export function indexPage(sql: SqlStorage, q: { before?: IndexEntry; limit: number }): IndexEntry[] {
  const b = q.before;
  return sql
    .exec<IndexEntry>(
      `SELECT batch_id, created_at FROM batch_index ${b ? "WHERE (created_at, batch_id) < (?, ?)" : ""}
        ORDER BY created_at DESC, batch_id DESC LIMIT ?`,
      ...(b ? [b.created_at, b.batch_id] : []),
      q.limit,
    )
    .toArray();
}
