/**
 * A task object's webhook events and their deliveries (docs/storage/task-object.md). The event is
 * written in the same write as the terminal status that causes it; its deliveries, one per
 * endpoint subscribed when the object fans it out, are driven by the same object's alarm, so a
 * tenant's deliveries are spread over its tasks' objects rather than queued in one.
 */
import { sha256Hex } from "../lib/crypto";
import { newId } from "../lib/ids";
import type { DeliveryTarget, LoggedDelivery, LoggedStatus } from "./delivery-log";
import { type DeliveredType, type EventType, TEST_EVENT } from "./event-types";

export const WEBHOOK_TABLES_SQL = `
  CREATE TABLE webhook_events (
    event_id TEXT PRIMARY KEY, type TEXT NOT NULL, created_at TEXT NOT NULL, fanned_out INTEGER NOT NULL, data TEXT);
  CREATE TABLE webhook_deliveries (
    delivery_id TEXT PRIMARY KEY, event_id TEXT NOT NULL, target TEXT NOT NULL, endpoint_id TEXT,
    status TEXT NOT NULL, attempt_count INTEGER NOT NULL, next_attempt_at INTEGER, last_error TEXT,
    created_at TEXT NOT NULL, finished_at TEXT, logged TEXT);
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending' AND target = 'endpoint';
  CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL, attempt INTEGER NOT NULL, attempted_at TEXT NOT NULL, http_status INTEGER,
    duration_ms INTEGER NOT NULL, error TEXT, location TEXT, response_excerpt TEXT,
    PRIMARY KEY (delivery_id, attempt));
`;

export interface WebhookEvent {
  event_id: string;
  type: DeliveredType;
  created_at: string;
  /** JSON of the event's `data` when fixed at the event (an endpoint's); null: the task's final envelope. */
  data?: string | null;
}

/** Records an event whose `data` is fixed now (an account's events: several of a type over time). */
export function recordEvent(sql: SqlStorage, type: EventType, now: string, data: unknown): string {
  const eventId = newId("evt");
  sql.exec(
    "INSERT INTO webhook_events (event_id, type, created_at, fanned_out, data) VALUES (?, ?, ?, 0, ?)",
    eventId,
    type,
    now,
    JSON.stringify(data),
  );
  return eventId;
}

export type DeliveryStatus = "pending" | "delivering" | "succeeded" | "failed";

export interface DeliveryRow {
  delivery_id: string;
  event_id: string;
  target: DeliveryTarget;
  endpoint_id: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: number | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
  /** The status the tenant's log was last told (null: not yet). */
  logged: LoggedStatus | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: string;
  http_status: number | null;
  duration_ms: number;
  error: string | null;
  location: string | null;
  response_excerpt: string | null;
}

/** Records `type` once for this object (a terminal status is reached once; later saves repeat nothing). */
export function recordEventOnce(sql: SqlStorage, type: EventType, now: string): void {
  if (sql.exec("SELECT 1 FROM webhook_events WHERE type = ? LIMIT 1", type).toArray().length > 0) return;
  sql.exec("INSERT INTO webhook_events (event_id, type, created_at, fanned_out) VALUES (?, ?, ?, 0)", newId("evt"), type, now);
}

export function unfannedEvents(sql: SqlStorage): WebhookEvent[] {
  return sql
    .exec<WebhookEvent & Record<string, string>>(
      "SELECT event_id, type, created_at, data FROM webhook_events WHERE fanned_out = 0 ORDER BY created_at",
    )
    .toArray();
}

export function webhookEvent(sql: SqlStorage, eventId: string): WebhookEvent | null {
  return (
    sql
      .exec<WebhookEvent & Record<string, string>>(
        "SELECT event_id, type, created_at, data FROM webhook_events WHERE event_id = ?",
        eventId,
      )
      .toArray()[0] ?? null
  );
}

/** A test event, fanned out in the same write to the one endpoint it tries. */
export function recordTestEvent(
  sql: SqlStorage,
  ids: { event_id: string; delivery_id: string; endpoint_id: string },
  nowMs: number,
  data: unknown,
): void {
  sql.exec(
    "INSERT INTO webhook_events (event_id, type, created_at, fanned_out, data) VALUES (?, ?, ?, 0, ?)",
    ids.event_id,
    TEST_EVENT,
    new Date(nowMs).toISOString(),
    JSON.stringify(data),
  );
  fanOut(sql, ids.event_id, [{ delivery_id: ids.delivery_id, endpoint_id: ids.endpoint_id, enabled: true }], nowMs);
}

/** A delivery's id follows from its event and target, so a repeated fan-out or report names the same one. */
export async function deliveryIdFor(eventId: string, target: string): Promise<string> {
  return `whd_${(await sha256Hex(`webhook-delivery:${eventId}:${target}`)).slice(0, 32)}`;
}

/**
 * One delivery per subscribed endpoint, in the same write that marks the event fanned out: due at
 * once for an enabled endpoint; failed at once for a disabled one (nothing is sent, and a recover
 * after it is enabled again finds it).
 */
export function fanOut(
  sql: SqlStorage,
  eventId: string,
  targets: { delivery_id: string; endpoint_id: string; enabled: boolean }[],
  nowMs: number,
): void {
  const now = new Date(nowMs).toISOString();
  for (const t of targets) {
    sql.exec(
      `INSERT OR IGNORE INTO webhook_deliveries
         (delivery_id, event_id, target, endpoint_id, status, attempt_count, next_attempt_at, last_error, created_at, finished_at)
       VALUES (?, ?, 'endpoint', ?, ?, 0, ?, ?, ?, ?)`,
      t.delivery_id,
      eventId,
      t.endpoint_id,
      t.enabled ? "pending" : "failed",
      t.enabled ? nowMs : null,
      t.enabled ? null : "endpoint disabled",
      now,
      t.enabled ? null : now,
    );
  }
  sql.exec("UPDATE webhook_events SET fanned_out = 1 WHERE event_id = ?", eventId);
}

/** A resend: the endpoint delivery is due now again, whatever its state (its attempts go on counting). */
export function rearm(sql: SqlStorage, deliveryId: string, nowMs: number): boolean {
  const row = deliveryRow(sql, deliveryId);
  if (!row) return false;
  // A callback is sent again through the task record; an attempt under way is not doubled.
  if (row.target !== "endpoint" || row.status === "delivering") return true;
  sql.exec(
    "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, finished_at = NULL WHERE delivery_id = ?",
    nowMs,
    deliveryId,
  );
  return true;
}

/** What a recover did to one delivery: queued it, or found its retry already scheduled or under way. */
export type RequeueOutcome = "queued" | "pending" | "succeeded";

/**
 * A recover: a failed endpoint delivery is due again at `atMs` (its attempts go on counting). One
 * still pending (a retry scheduled, or an attempt under way) is left as it is, so a recover
 * repeated never sends it twice; null: no such endpoint delivery here.
 */
export function requeue(sql: SqlStorage, deliveryId: string, atMs: number): RequeueOutcome | null {
  const row = deliveryRow(sql, deliveryId);
  if (row?.target !== "endpoint") return null;
  if (row.status === "pending" || row.status === "delivering") return "pending";
  if (row.status === "succeeded") return "succeeded";
  sql.exec(
    "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, finished_at = NULL WHERE delivery_id = ?",
    atMs,
    deliveryId,
  );
  return "queued";
}

export function dueDeliveries(sql: SqlStorage, nowMs: number): DeliveryRow[] {
  return sql
    .exec<DeliveryRow & Record<string, string | number | null>>(
      "SELECT * FROM webhook_deliveries WHERE status = 'pending' AND target = 'endpoint' AND next_attempt_at <= ? ORDER BY next_attempt_at",
      nowMs,
    )
    .toArray();
}

const REPORT_RETRY_MS = 30_000;

/**
 * When the alarm should next run for webhooks: now for an event not fanned out yet or an attempt
 * interrupted mid-way (`delivering` at start: tried again), else the earliest pending attempt.
 */
export function nextWebhookAt(sql: SqlStorage, nowMs: number): number | null {
  if (sql.exec("SELECT 1 FROM webhook_events WHERE fanned_out = 0 LIMIT 1").toArray().length > 0) return nowMs;
  const row = sql
    .exec<{ at: number | null }>(
      "SELECT MIN(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending' AND target = 'endpoint'",
    )
    .one();
  // A report the account did not take is sent again within 30 s.
  if (unreported(sql).length > 0) return Math.min(row.at ?? Number.POSITIVE_INFINITY, nowMs + REPORT_RETRY_MS);
  return row.at;
}

/** Attempts interrupted by a restart (counted, never answered) go back to pending, due now. */
export function resumeInterrupted(sql: SqlStorage, nowMs: number, inFlight: ReadonlySet<string>): void {
  const stuck = sql
    .exec<{ delivery_id: string }>(
      "SELECT delivery_id FROM webhook_deliveries WHERE status = 'delivering' AND target = 'endpoint'",
    )
    .toArray()
    .filter((r) => !inFlight.has(r.delivery_id));
  for (const r of stuck) {
    sql.exec(
      "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, last_error = 'interrupted before an answer' WHERE delivery_id = ?",
      nowMs,
      r.delivery_id,
    );
  }
}

/** Counts the attempt before it is made, so a crash mid-attempt still shows it was tried. */
export function beginAttempt(sql: SqlStorage, deliveryId: string): number {
  sql.exec(
    "UPDATE webhook_deliveries SET status = 'delivering', attempt_count = attempt_count + 1, next_attempt_at = NULL WHERE delivery_id = ?",
    deliveryId,
  );
  return sql.exec<{ n: number }>("SELECT attempt_count AS n FROM webhook_deliveries WHERE delivery_id = ?", deliveryId).one().n;
}

export function recordAttempt(sql: SqlStorage, a: AttemptRow): void {
  sql.exec(
    `INSERT OR REPLACE INTO webhook_attempts
       (delivery_id, attempt, attempted_at, http_status, duration_ms, error, location, response_excerpt)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    a.delivery_id,
    a.attempt,
    a.attempted_at,
    a.http_status,
    a.duration_ms,
    a.error,
    a.location,
    a.response_excerpt,
  );
}

/** The attempt's outcome: done (succeeded, or failed for good), or pending again at `nextAt`. */
export function finishAttempt(
  sql: SqlStorage,
  deliveryId: string,
  outcome:
    | { status: "succeeded" | "failed"; error: string | null; at: string }
    | { status: "pending"; error: string; nextAt: number },
): void {
  if (outcome.status === "pending") {
    sql.exec(
      "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, last_error = ? WHERE delivery_id = ?",
      outcome.nextAt,
      outcome.error,
      deliveryId,
    );
  } else {
    sql.exec(
      "UPDATE webhook_deliveries SET status = ?, next_attempt_at = NULL, last_error = ?, finished_at = ? WHERE delivery_id = ?",
      outcome.status,
      outcome.error,
      outcome.at,
      deliveryId,
    );
  }
}

export function deliveryRows(sql: SqlStorage): DeliveryRow[] {
  return sql
    .exec<DeliveryRow & Record<string, string | number | null>>(
      "SELECT * FROM webhook_deliveries ORDER BY created_at, delivery_id",
    )
    .toArray();
}

export function attemptRows(sql: SqlStorage, deliveryId: string): AttemptRow[] {
  return sql
    .exec<AttemptRow & Record<string, string | number | null>>(
      "SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt",
      deliveryId,
    )
    .toArray();
}

/** In the tenant's log an attempt under way is still pending. */
function loggedStatus(status: DeliveryStatus): LoggedStatus {
  return status === "delivering" ? "pending" : status;
}

/** Deliveries whose state the tenant's log does not know yet (made, or ended, since the last report). */
export function unreported(sql: SqlStorage): Omit<LoggedDelivery, "task_id" | "mode">[] {
  return sql
    .exec<DeliveryRow & { event_type: string } & Record<string, string | number | null>>(
      `SELECT d.*, e.type AS event_type FROM webhook_deliveries d JOIN webhook_events e ON e.event_id = d.event_id
       WHERE d.logged IS NULL OR d.logged <> (CASE WHEN d.status = 'delivering' THEN 'pending' ELSE d.status END)`,
    )
    .toArray()
    .map((d) => ({
      delivery_id: d.delivery_id,
      target: d.target,
      endpoint_id: d.endpoint_id,
      event_id: d.event_id,
      event_type: d.event_type,
      status: loggedStatus(d.status),
      created_at: d.created_at,
      finished_at: d.finished_at,
    }));
}

/** The log was told these statuses (a status changed since is reported next time). */
export function markReported(sql: SqlStorage, reported: { delivery_id: string; status: LoggedStatus }[]): void {
  for (const r of reported) {
    sql.exec("UPDATE webhook_deliveries SET logged = ? WHERE delivery_id = ?", r.status, r.delivery_id);
  }
}

export function deliveryRow(sql: SqlStorage, deliveryId: string): DeliveryRow | null {
  return (
    sql
      .exec<DeliveryRow & Record<string, string | number | null>>(
        "SELECT * FROM webhook_deliveries WHERE delivery_id = ?",
        deliveryId,
      )
      .toArray()[0] ?? null
  );
}

/** The terminal event of the task (the one its callback carries), if recorded. */
export function terminalEvent(sql: SqlStorage): WebhookEvent | null {
  return (
    sql
      .exec<WebhookEvent & Record<string, string>>(
        "SELECT event_id, type, created_at FROM webhook_events WHERE type LIKE 'task.%' ORDER BY created_at LIMIT 1",
      )
      .toArray()[0] ?? null
  );
}

/** The callback's attempt in the log: its delivery row (made at the first attempt) mirrors the record's callback. */
export function callbackAttemptBegun(
  sql: SqlStorage,
  d: { delivery_id: string; event_id: string; attempt: number; now: string },
): void {
  sql.exec(
    `INSERT OR IGNORE INTO webhook_deliveries
       (delivery_id, event_id, target, endpoint_id, status, attempt_count, created_at)
     VALUES (?, ?, 'callback', NULL, 'delivering', 0, ?)`,
    d.delivery_id,
    d.event_id,
    d.now,
  );
  sql.exec(
    "UPDATE webhook_deliveries SET status = 'delivering', attempt_count = ?, next_attempt_at = NULL WHERE delivery_id = ?",
    d.attempt,
    d.delivery_id,
  );
}
