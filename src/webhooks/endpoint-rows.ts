/**
 * The `webhook_endpoints` rows of an AccountObject: where the tenant wants its events, which
 * events, and the endpoint's signing secret, sealed at rest (bound to the endpoint id). A deleted
 * endpoint keeps its row (`deleted_at`), so the deliveries that named it still say where they went.
 * Each endpoint has a key mode (`mode`, added by schema version 18): it receives the events of its
 * own mode's tasks only (src/keys/mode-scope.ts).
 */
import type { KeyMode } from "../keys/api-keys";
import { unseal } from "../lib/sealed";
import { type EventType, type Subscription, subscribes } from "./event-types";

export const WEBHOOK_ENDPOINTS_TABLE_SQL = `
  CREATE TABLE webhook_endpoints (
    endpoint_id TEXT PRIMARY KEY, url TEXT NOT NULL, description TEXT, events TEXT NOT NULL,
    enabled INTEGER NOT NULL, secret_sealed TEXT NOT NULL, previous_secret_sealed TEXT, previous_until TEXT,
    rotated_at TEXT, failing_since TEXT, disabled_reason TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, deleted_at TEXT);
  CREATE INDEX webhook_endpoints_by_created ON webhook_endpoints (created_at, endpoint_id) WHERE deleted_at IS NULL;
`;

/** A tenant's endpoints (not deleted) of one mode at most: each event fans out to its mode's. */
export const MAX_ENDPOINTS = 20;

export interface WebhookEndpointRecord {
  endpoint_id: string;
  /** The mode of the key that made it (a console session makes live ones); its events are that mode's. */
  mode: KeyMode;
  url: string;
  description: string | null;
  events: Subscription[];
  enabled: boolean;
  /** `failing`: disabled by the service after 5 days of failed deliveries; null otherwise. */
  disabled_reason: "failing" | null;
  /** Since when every delivery to it has failed (null: the last one succeeded, or none failed). */
  failing_since: string | null;
  /** When the secret was last replaced (null: never). */
  secret_rotated_at: string | null;
  /** While a rotation's overlap runs: until when the previous secret still signs beside the new; else null. */
  previous_secret_valid_until: string | null;
  created_at: string;
  updated_at: string;
}

type Row = {
  endpoint_id: string;
  mode: KeyMode;
  url: string;
  description: string | null;
  events: string;
  enabled: number;
  disabled_reason: "failing" | null;
  failing_since: string | null;
  rotated_at: string | null;
  previous_until: string | null;
  created_at: string;
  updated_at: string;
};

const COLUMNS =
  "endpoint_id, mode, url, description, events, enabled, disabled_reason, failing_since, rotated_at, previous_until, created_at, updated_at";

function overlapping(previousUntil: string | null, nowMs: number): boolean {
  return previousUntil !== null && Date.parse(previousUntil) > nowMs;
}

function record(r: Row, nowMs = Date.now()): WebhookEndpointRecord {
  return {
    endpoint_id: r.endpoint_id,
    mode: r.mode,
    url: r.url,
    description: r.description,
    events: JSON.parse(r.events) as Subscription[],
    enabled: r.enabled === 1,
    disabled_reason: r.disabled_reason,
    failing_since: r.failing_since,
    secret_rotated_at: r.rotated_at,
    previous_secret_valid_until: overlapping(r.previous_until, nowMs) ? r.previous_until : null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export function endpointRow(sql: SqlStorage, endpointId: string): WebhookEndpointRecord | null {
  const r = sql
    .exec<Row>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE endpoint_id = ? AND deleted_at IS NULL`, endpointId)
    .toArray()[0];
  return r ? record(r) : null;
}

/** Oldest first: the order they were made in; of one mode, or both when `mode` is absent. */
export function endpointRows(sql: SqlStorage, mode?: KeyMode): WebhookEndpointRecord[] {
  const rows =
    mode === undefined
      ? sql.exec<Row>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE deleted_at IS NULL ORDER BY created_at, endpoint_id`)
      : sql.exec<Row>(
          `SELECT ${COLUMNS} FROM webhook_endpoints WHERE deleted_at IS NULL AND mode = ? ORDER BY created_at, endpoint_id`,
          mode,
        );
  return rows.toArray().map(record);
}

/** Counted per mode: test-mode endpoints never take the room of live ones. */
export function countEndpoints(sql: SqlStorage, mode: KeyMode): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE deleted_at IS NULL AND mode = ?", mode).one()
    .n;
}

export interface NewEndpoint {
  endpoint_id: string;
  mode: KeyMode;
  url: string;
  description: string | null;
  events: Subscription[];
  enabled: boolean;
}

export function insertEndpoint(sql: SqlStorage, e: NewEndpoint, sealedSecret: string, now: string): void {
  sql.exec(
    `INSERT INTO webhook_endpoints (endpoint_id, mode, url, description, events, enabled, secret_sealed, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    e.endpoint_id,
    e.mode,
    e.url,
    e.description,
    JSON.stringify(e.events),
    e.enabled ? 1 : 0,
    sealedSecret,
    now,
    now,
  );
}

export interface EndpointChange {
  url?: string;
  description?: string | null;
  events?: Subscription[];
  enabled?: boolean;
}

export function updateEndpoint(sql: SqlStorage, endpointId: string, change: EndpointChange, now: string): void {
  const fields: [string, string | number | null][] = [];
  if (change.url !== undefined) fields.push(["url", change.url]);
  if (change.description !== undefined) fields.push(["description", change.description]);
  if (change.events !== undefined) fields.push(["events", JSON.stringify(change.events)]);
  if (change.enabled !== undefined) fields.push(["enabled", change.enabled ? 1 : 0]);
  // Turned on again (or off by hand): the service's reason and the failure streak start over.
  if (change.enabled !== undefined) fields.push(["disabled_reason", null], ["failing_since", null]);
  const sets = fields.map(([name]) => `${name} = ?`);
  const values = fields.map(([, value]) => value);
  sets.push("updated_at = ?");
  values.push(now);
  sql.exec(`UPDATE webhook_endpoints SET ${sets.join(", ")} WHERE endpoint_id = ?`, ...values, endpointId);
}

export function markEndpointDeleted(sql: SqlStorage, endpointId: string, now: string): void {
  sql.exec(
    "UPDATE webhook_endpoints SET deleted_at = ?, updated_at = ?, enabled = 0 WHERE endpoint_id = ?",
    now,
    now,
    endpointId,
  );
}

/** The endpoints of `mode` subscribed to `type`: who an event of that type, of a task of that mode, goes to (if enabled). */
export function subscribedEndpoints(
  sql: SqlStorage,
  type: EventType,
  mode: KeyMode,
): { endpoint_id: string; enabled: boolean }[] {
  return endpointRows(sql, mode)
    .filter((e) => subscribes(e.events, type))
    .map((e) => ({ endpoint_id: e.endpoint_id, enabled: e.enabled }));
}

/**
 * The mode of one of the account's own events, from its data: an endpoint's event is its
 * endpoint's, a key's threshold its key's (test keys are charged nothing, so theirs never come).
 */
export function accountEventMode(sql: SqlStorage, data: string | null | undefined): KeyMode {
  const d = (data ? JSON.parse(data) : null) as { mode?: KeyMode; key_id?: string } | null;
  if (d?.mode) return d.mode;
  if (d?.key_id) {
    const key = sql.exec<{ mode: KeyMode }>("SELECT mode FROM api_keys WHERE key_id = ?", d.key_id).toArray()[0];
    if (key) return key.mode;
  }
  return "live";
}

/** What a delivery needs: where, whether it may send, and the secrets to sign with (newest first). */
export async function endpointForDelivery(
  sql: SqlStorage,
  encryptionKey: string | undefined,
  endpointId: string,
  nowMs = Date.now(),
): Promise<{ url: string; enabled: boolean; secrets: string[] } | null> {
  const r = sql
    .exec<{
      url: string;
      enabled: number;
      secret_sealed: string;
      previous_secret_sealed: string | null;
      previous_until: string | null;
    }>(
      `SELECT url, enabled, secret_sealed, previous_secret_sealed, previous_until
       FROM webhook_endpoints WHERE endpoint_id = ? AND deleted_at IS NULL`,
      endpointId,
    )
    .toArray()[0];
  if (!r) return null;
  // Newest first; the previous secret too while the overlap runs (both signatures are sent).
  const secrets = [await unseal(encryptionKey, r.secret_sealed, endpointId)];
  if (r.previous_secret_sealed && overlapping(r.previous_until, nowMs)) {
    secrets.push(await unseal(encryptionKey, r.previous_secret_sealed, endpointId));
  }
  return { url: r.url, enabled: r.enabled === 1, secrets };
}

/**
 * A new secret in place: the current one moves to `previous` and keeps signing until
 * `previousUntil` (null: it stops at once). A rotation during an overlap ends that overlap.
 */
export function rotateEndpointSecret(
  sql: SqlStorage,
  endpointId: string,
  sealed: string,
  now: string,
  previousUntil: string | null,
): void {
  sql.exec(
    `UPDATE webhook_endpoints SET previous_secret_sealed = ${previousUntil === null ? "NULL" : "secret_sealed"},
       previous_until = ?, secret_sealed = ?, rotated_at = ?, updated_at = ? WHERE endpoint_id = ?`,
    previousUntil,
    sealed,
    now,
    now,
    endpointId,
  );
}

/** How long every delivery to an endpoint must have failed before the service disables it. */
export const FAILING_DISABLE_MS = 5 * 24 * 3600 * 1000;

/**
 * A delivery's end, as its task object reports it, moves the endpoint's failure streak: a
 * success ends it; a failure (its deliveries fail after their whole schedule) starts it at the
 * delivery's creation if none runs. Answers whether the endpoint is now to be disabled.
 */
export function noteDeliveryEnd(
  sql: SqlStorage,
  endpointId: string,
  outcome: "succeeded" | "failed",
  startedAt: string,
  nowMs: number,
): boolean {
  if (outcome === "succeeded") {
    sql.exec("UPDATE webhook_endpoints SET failing_since = NULL WHERE endpoint_id = ? AND failing_since IS NOT NULL", endpointId);
    return false;
  }
  sql.exec(
    `UPDATE webhook_endpoints SET failing_since = ?
     WHERE endpoint_id = ? AND enabled = 1 AND deleted_at IS NULL AND (failing_since IS NULL OR failing_since > ?)`,
    startedAt,
    endpointId,
    startedAt,
  );
  const e = endpointRow(sql, endpointId);
  return !!e?.enabled && e.failing_since !== null && Date.parse(e.failing_since) <= nowMs - FAILING_DISABLE_MS;
}

export function disableFailing(sql: SqlStorage, endpointId: string, now: string): void {
  sql.exec(
    "UPDATE webhook_endpoints SET enabled = 0, disabled_reason = 'failing', updated_at = ? WHERE endpoint_id = ?",
    now,
    endpointId,
  );
}

export type EndpointCreation =
  | { ok: true; endpoint: WebhookEndpointRecord; secret: string }
  | { ok: false; code: "tenant_not_found" | "too_many" };

/** Whether the tenant has an endpoint (of either mode) that is not deleted. */
export function hasEndpoint(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM webhook_endpoints WHERE deleted_at IS NULL LIMIT 1").toArray().length > 0;
}
