/**
 * The `webhook_endpoints` rows of an AccountObject: where the tenant wants its events, which
 * events, and the endpoint's signing secret, sealed at rest (bound to the endpoint id). A deleted
 * endpoint keeps its row (`deleted_at`), so the deliveries that named it still say where they went.
 */
import { unseal } from "../lib/sealed";
import { type EventType, type Subscription, subscribes } from "./event-types";

export const WEBHOOK_ENDPOINTS_TABLE_SQL = `
  CREATE TABLE webhook_endpoints (
    endpoint_id TEXT PRIMARY KEY, url TEXT NOT NULL, description TEXT, events TEXT NOT NULL,
    enabled INTEGER NOT NULL, secret_sealed TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, deleted_at TEXT);
  CREATE INDEX webhook_endpoints_by_created ON webhook_endpoints (created_at, endpoint_id) WHERE deleted_at IS NULL;
`;

/** A tenant's endpoints (not deleted) at most: each event fans out to every one of them. */
export const MAX_ENDPOINTS = 20;

export interface WebhookEndpointRecord {
  endpoint_id: string;
  url: string;
  description: string | null;
  events: Subscription[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

type Row = {
  endpoint_id: string;
  url: string;
  description: string | null;
  events: string;
  enabled: number;
  created_at: string;
  updated_at: string;
};

const COLUMNS = "endpoint_id, url, description, events, enabled, created_at, updated_at";

function record(r: Row): WebhookEndpointRecord {
  return {
    endpoint_id: r.endpoint_id,
    url: r.url,
    description: r.description,
    events: JSON.parse(r.events) as Subscription[],
    enabled: r.enabled === 1,
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

/** Oldest first: the order they were made in. */
export function endpointRows(sql: SqlStorage): WebhookEndpointRecord[] {
  return sql
    .exec<Row>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE deleted_at IS NULL ORDER BY created_at, endpoint_id`)
    .toArray()
    .map(record);
}

export function countEndpoints(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE deleted_at IS NULL").one().n;
}

export interface NewEndpoint {
  endpoint_id: string;
  url: string;
  description: string | null;
  events: Subscription[];
  enabled: boolean;
}

export function insertEndpoint(sql: SqlStorage, e: NewEndpoint, sealedSecret: string, now: string): void {
  sql.exec(
    `INSERT INTO webhook_endpoints (endpoint_id, url, description, events, enabled, secret_sealed, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    e.endpoint_id,
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

/** The endpoints subscribed to `type`: who an event of that type goes to (if enabled). */
export function subscribedEndpoints(sql: SqlStorage, type: EventType): { endpoint_id: string; enabled: boolean }[] {
  return endpointRows(sql)
    .filter((e) => subscribes(e.events, type))
    .map((e) => ({ endpoint_id: e.endpoint_id, enabled: e.enabled }));
}

/** What a delivery needs: where, whether it may send, and the secrets to sign with (newest first). */
export async function endpointForDelivery(
  sql: SqlStorage,
  encryptionKey: string | undefined,
  endpointId: string,
): Promise<{ url: string; enabled: boolean; secrets: string[] } | null> {
  const r = sql
    .exec<{ url: string; enabled: number; secret_sealed: string }>(
      "SELECT url, enabled, secret_sealed FROM webhook_endpoints WHERE endpoint_id = ? AND deleted_at IS NULL",
      endpointId,
    )
    .toArray()[0];
  if (!r) return null;
  return { url: r.url, enabled: r.enabled === 1, secrets: [await unseal(encryptionKey, r.secret_sealed, endpointId)] };
}
