/**
 * The tenant's delivery log, in its AccountObject: one row per delivery (to an endpoint, or a
 * task's callback), written when the delivery is made and again when it ends, so the log is
 * listed and filtered in one place while every attempt stays in the task object that made it.
 * Retries touch only the task object: the account takes two writes per delivery, not one per attempt.
 * Each row has a key mode (`mode`, schema version 18): its endpoint's, or a callback's task's.
 */
import type { KeyMode } from "../keys/api-keys";

export const DELIVERY_LOG_TABLE_SQL = `
  CREATE TABLE webhook_delivery_log (
    delivery_id TEXT PRIMARY KEY, task_id TEXT, target TEXT NOT NULL, endpoint_id TEXT,
    event_id TEXT NOT NULL, event_type TEXT NOT NULL, status TEXT NOT NULL,
    created_at TEXT NOT NULL, finished_at TEXT);
  CREATE INDEX webhook_delivery_log_by_created ON webhook_delivery_log (created_at DESC, delivery_id DESC);
  CREATE INDEX webhook_delivery_log_by_endpoint ON webhook_delivery_log (endpoint_id, created_at) WHERE endpoint_id IS NOT NULL;
`;

export type DeliveryTarget = "callback" | "endpoint";
/** In the log, an attempt under way is still `pending`. */
export type LoggedStatus = "pending" | "succeeded" | "failed";

export interface LoggedDelivery {
  delivery_id: string;
  /** The task object holding the delivery; null: the account's own (an `endpoint.disabled` event). */
  task_id: string | null;
  /** Whose it is: a delivery to an endpoint has the endpoint's mode, a callback its task's. */
  mode: KeyMode;
  target: DeliveryTarget;
  endpoint_id: string | null;
  event_id: string;
  event_type: string;
  status: LoggedStatus;
  created_at: string;
  finished_at: string | null;
}

/**
 * Written again with the same id only moves its status and end (idempotent: a task object may report
 * twice). A delivery to an endpoint takes the endpoint's mode, whatever the reporter said.
 */
export function logDeliveries(sql: SqlStorage, rows: LoggedDelivery[]): void {
  for (const r of rows) {
    sql.exec(
      `INSERT INTO webhook_delivery_log
         (delivery_id, task_id, mode, target, endpoint_id, event_id, event_type, status, created_at, finished_at)
       VALUES (?, ?, COALESCE((SELECT mode FROM webhook_endpoints WHERE endpoint_id = ?), ?), ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (delivery_id) DO UPDATE SET status = excluded.status, finished_at = excluded.finished_at`,
      r.delivery_id,
      r.task_id,
      r.endpoint_id,
      r.mode,
      r.target,
      r.endpoint_id,
      r.event_id,
      r.event_type,
      r.status,
      r.created_at,
      r.finished_at,
    );
  }
}

export interface DeliveryLogQuery {
  limit: number;
  /** Absent: both modes (a console session). */
  mode?: KeyMode;
  endpoint_id?: string;
  task_id?: string;
  status?: LoggedStatus;
  after?: { created_at: string; delivery_id: string };
}

/** Newest first. */
export function deliveryLogPage(sql: SqlStorage, q: DeliveryLogQuery): { rows: LoggedDelivery[]; has_more: boolean } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  for (const column of ["mode", "endpoint_id", "task_id", "status"] as const) {
    const value = q[column];
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    args.push(value);
  }
  if (q.after) {
    where.push("(created_at < ? OR (created_at = ? AND delivery_id < ?))");
    args.push(q.after.created_at, q.after.created_at, q.after.delivery_id);
  }
  const rows = sql
    .exec<LoggedDelivery & Record<string, string | null>>(
      `SELECT * FROM webhook_delivery_log ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY created_at DESC, delivery_id DESC LIMIT ?`,
      ...args,
      q.limit + 1,
    )
    .toArray();
  return { rows: rows.slice(0, q.limit), has_more: rows.length > q.limit };
}

export function loggedDelivery(sql: SqlStorage, deliveryId: string): LoggedDelivery | null {
  return (
    sql
      .exec<LoggedDelivery & Record<string, string | null>>(
        "SELECT * FROM webhook_delivery_log WHERE delivery_id = ?",
        deliveryId,
      )
      .toArray()[0] ?? null
  );
}

/**
 * What a recover of an endpoint since `since` finds: its failed deliveries, oldest first (at most
 * `limit`), how many failed in all, and how many are still pending (a retry scheduled or under
 * way), which a recover leaves alone.
 */
export function unsucceededSince(
  sql: SqlStorage,
  endpointId: string,
  since: string,
  limit: number,
): { failed: { delivery_id: string; task_id: string | null }[]; failed_total: number; pending: number } {
  const failed = sql
    .exec<{ delivery_id: string; task_id: string | null }>(
      `SELECT delivery_id, task_id FROM webhook_delivery_log
       WHERE endpoint_id = ? AND created_at >= ? AND status = 'failed' ORDER BY created_at, delivery_id LIMIT ?`,
      endpointId,
      since,
      limit,
    )
    .toArray();
  const counts = sql
    .exec<{ failed: number; pending: number }>(
      `SELECT COALESCE(SUM(status = 'failed'), 0) AS failed, COALESCE(SUM(status = 'pending'), 0) AS pending
       FROM webhook_delivery_log WHERE endpoint_id = ? AND created_at >= ?`,
      endpointId,
      since,
    )
    .one();
  return { failed, failed_total: counts.failed, pending: counts.pending };
}
