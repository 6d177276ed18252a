/**
 * The budget of webhook sends a tenant asks for by hand — a resend, a recover, a test event —
 * kept in its AccountObject beside the endpoints, so that concurrent calls take from it one at a
 * time and none can pass it. Each call that sends takes a grant: one row, counted for an hour.
 * Sends the service makes on its own (an event's first attempt and its retry schedule) spend nothing.
 *
 * The same rows pace a recover: its deliveries are due one every PACING_MS per endpoint, each
 * recover starting after the previous one's last, so one call never bursts at a host.
 */
import { newId } from "../lib/ids";

export const SEND_BUDGET_TABLE_SQL = `
  CREATE TABLE webhook_manual_sends (
    grant_id TEXT PRIMARY KEY, endpoint_id TEXT, kind TEXT NOT NULL, at_ms INTEGER NOT NULL,
    count INTEGER NOT NULL, paced_until INTEGER);
  CREATE INDEX webhook_manual_sends_by_at ON webhook_manual_sends (at_ms);
`;

/** The budgets are counted over the last hour, sliding: a send stops counting an hour after it was granted. */
export const SEND_WINDOW_MS = 3_600_000;
/** Sends by hand to one endpoint per hour. */
export const ENDPOINT_SENDS_PER_HOUR = 500;
/** Sends by hand per tenant per hour: every endpoint and every task callback together. */
export const TENANT_SENDS_PER_HOUR = 2_000;
/** Deliveries one recover queues at most (`has_more` asks for another call). */
export const RECOVER_PER_CALL = 100;
/** A recover's deliveries to one endpoint are due this far apart (5 a second). */
export const PACING_MS = 200;

export type SendKind = "resend" | "recover" | "test";
export type SendBudget = "endpoint" | "tenant";

export interface SendGrant {
  grant_id: string;
  granted: number;
  /** When the first send of a paced grant is due (ms); the next ones follow PACING_MS apart. */
  start_at: number;
  /** The budget that cut the grant short (null: everything asked for was granted). */
  limited_by: SendBudget | null;
  /** That budget (or, when none did, the tighter one): its size, what is left, seconds until a send frees. */
  limit: number;
  remaining: number;
  retry_after: number;
}

interface Used {
  count: number;
  rows: { at_ms: number; count: number }[];
}

function used(sql: SqlStorage, endpointId: string | null, sinceMs: number): Used {
  const rows = sql
    .exec<{ at_ms: number; count: number }>(
      `SELECT at_ms, count FROM webhook_manual_sends
       WHERE at_ms > ? AND count > 0 ${endpointId === null ? "" : "AND endpoint_id = ?"} ORDER BY at_ms`,
      ...(endpointId === null ? [sinceMs] : [sinceMs, endpointId]),
    )
    .toArray();
  return { count: rows.reduce((n, r) => n + r.count, 0), rows };
}

/** Seconds until the oldest grants have left the window enough for one more send. */
function secondsUntilOne(u: Used, limit: number, nowMs: number): number {
  let left = u.count;
  for (const r of u.rows) {
    left -= r.count;
    if (left < limit) return Math.max(1, Math.ceil((r.at_ms + SEND_WINDOW_MS - nowMs) / 1000));
  }
  // Only the grant made now holds the budget: it frees an hour from now.
  return SEND_WINDOW_MS / 1000;
}

/**
 * Takes up to `wanted` sends from the endpoint's budget (null: a task callback, which has none of
 * its own) and the tenant's, in one synchronous step of the object: what both allow is granted,
 * possibly nothing. A `paced` grant is given its start in the endpoint's pacing.
 */
export function takeSends(
  sql: SqlStorage,
  g: { endpoint_id: string | null; kind: SendKind; wanted: number; paced: boolean; nowMs: number },
): SendGrant {
  const since = g.nowMs - SEND_WINDOW_MS;
  sql.exec("DELETE FROM webhook_manual_sends WHERE at_ms <= ?", since);
  const tenant = used(sql, null, since);
  const endpoint = g.endpoint_id === null ? null : used(sql, g.endpoint_id, since);
  const tenantLeft = Math.max(0, TENANT_SENDS_PER_HOUR - tenant.count);
  const endpointLeft = endpoint ? Math.max(0, ENDPOINT_SENDS_PER_HOUR - endpoint.count) : Number.POSITIVE_INFINITY;
  const granted = Math.max(0, Math.min(g.wanted, tenantLeft, endpointLeft));
  const binding: SendBudget = endpoint && endpointLeft <= tenantLeft ? "endpoint" : "tenant";
  const limited_by = granted < g.wanted ? binding : null;
  const [limit, u] = binding === "endpoint" ? [ENDPOINT_SENDS_PER_HOUR, endpoint as Used] : [TENANT_SENDS_PER_HOUR, tenant];
  let start = g.nowMs;
  if (g.paced && g.endpoint_id !== null) {
    const slot = sql
      .exec<{ at: number | null }>("SELECT MAX(paced_until) AS at FROM webhook_manual_sends WHERE endpoint_id = ?", g.endpoint_id)
      .one().at;
    start = Math.max(g.nowMs, slot ?? 0);
  }
  const grantId = newId("wsg");
  if (granted > 0) {
    sql.exec(
      "INSERT INTO webhook_manual_sends (grant_id, endpoint_id, kind, at_ms, count, paced_until) VALUES (?, ?, ?, ?, ?, ?)",
      grantId,
      g.endpoint_id,
      g.kind,
      g.nowMs,
      granted,
      g.paced ? start + granted * PACING_MS : null,
    );
  }
  return {
    grant_id: grantId,
    granted,
    start_at: start,
    limited_by,
    limit,
    remaining: Math.max(0, limit - u.count - granted),
    retry_after: limited_by ? secondsUntilOne({ count: u.count + granted, rows: u.rows }, limit, g.nowMs) : 0,
  };
}

/**
 * What a grant really sent: `used` of it (the rest is given back) and, for a paced one, when its
 * last send is due plus PACING_MS, so the next recover to the endpoint follows on without a gap.
 */
export function settleSends(sql: SqlStorage, grantId: string, used: number, pacedUntil: number | null): void {
  sql.exec(
    `UPDATE webhook_manual_sends SET count = MIN(count, ?),
       paced_until = CASE WHEN paced_until IS NULL OR ? IS NULL THEN paced_until ELSE MIN(paced_until, ?) END
     WHERE grant_id = ?`,
    used,
    pacedUntil,
    pacedUntil,
    grantId,
  );
}
