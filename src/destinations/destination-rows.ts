/**
 * The `storage_destinations` rows of an AccountObject: the tenant's S3-compatible buckets that
 * outputs are delivered to. The key pair is sealed at rest (bound to the destination id) and only
 * its last 4 characters are kept in clear, for display. A deleted destination keeps its row
 * (`deleted_at`), so the tasks that named it still say where their outputs went.
 */
import { seal, unseal } from "../lib/sealed";
import type { S3Target } from "./s3";

export const STORAGE_DESTINATIONS_TABLE_SQL = `
  CREATE TABLE storage_destinations (
    destination_id TEXT PRIMARY KEY, endpoint TEXT NOT NULL, bucket TEXT NOT NULL, region TEXT NOT NULL,
    prefix TEXT NOT NULL, path_style INTEGER NOT NULL, is_default INTEGER NOT NULL,
    credentials_sealed TEXT NOT NULL, access_key_tail TEXT NOT NULL, secret_key_tail TEXT NOT NULL,
    verified_at TEXT NOT NULL, created_at TEXT NOT NULL, deleted_at TEXT);
  CREATE INDEX storage_destinations_by_created ON storage_destinations (created_at, destination_id) WHERE deleted_at IS NULL;
`;

/** A tenant's destinations (not deleted) at most. */
export const MAX_DESTINATIONS = 10;

export interface DestinationRecord {
  destination_id: string;
  endpoint: string;
  bucket: string;
  region: string;
  /** No leading or trailing slash; "" for the bucket's root. */
  prefix: string;
  path_style: boolean;
  /** The tenant's default: outputs of a create without `output_destination_id` go here. */
  default: boolean;
  access_key_id_last4: string;
  secret_access_key_last4: string;
  verified_at: string;
  created_at: string;
}

export interface NewDestination {
  destination_id: string;
  endpoint: string;
  bucket: string;
  region: string;
  prefix: string;
  path_style: boolean;
  default: boolean;
  access_key_id: string;
  secret_access_key: string;
}

type Row = {
  destination_id: string;
  endpoint: string;
  bucket: string;
  region: string;
  prefix: string;
  path_style: number;
  is_default: number;
  access_key_tail: string;
  secret_key_tail: string;
  verified_at: string;
  created_at: string;
};

const COLUMNS =
  "destination_id, endpoint, bucket, region, prefix, path_style, is_default, access_key_tail, secret_key_tail, verified_at, created_at";

function record(r: Row): DestinationRecord {
  return {
    destination_id: r.destination_id,
    endpoint: r.endpoint,
    bucket: r.bucket,
    region: r.region,
    prefix: r.prefix,
    path_style: r.path_style === 1,
    default: r.is_default === 1,
    access_key_id_last4: r.access_key_tail,
    secret_access_key_last4: r.secret_key_tail,
    verified_at: r.verified_at,
    created_at: r.created_at,
  };
}

export function destinationRow(sql: SqlStorage, id: string): DestinationRecord | null {
  const r = sql
    .exec<Row>(`SELECT ${COLUMNS} FROM storage_destinations WHERE destination_id = ? AND deleted_at IS NULL`, id)
    .toArray()[0];
  return r ? record(r) : null;
}

/** Oldest first. */
export function destinationRows(sql: SqlStorage): DestinationRecord[] {
  return sql
    .exec<Row>(`SELECT ${COLUMNS} FROM storage_destinations WHERE deleted_at IS NULL ORDER BY created_at, destination_id`)
    .toArray()
    .map(record);
}

export function defaultDestination(sql: SqlStorage): DestinationRecord | null {
  const r = sql
    .exec<Row>(`SELECT ${COLUMNS} FROM storage_destinations WHERE deleted_at IS NULL AND is_default = 1 LIMIT 1`)
    .toArray()[0];
  return r ? record(r) : null;
}

export function countDestinations(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM storage_destinations WHERE deleted_at IS NULL").one().n;
}

const last4 = (s: string) => s.slice(-4);

/** The key pair sealed as one value, bound to the destination. */
export function sealCredentials(encryptionKey: string | undefined, d: NewDestination): Promise<string> {
  return seal(
    encryptionKey,
    JSON.stringify({ access_key_id: d.access_key_id, secret_access_key: d.secret_access_key }),
    d.destination_id,
  );
}

export function insertDestination(sql: SqlStorage, d: NewDestination, sealed: string, now: string): void {
  if (d.default) sql.exec("UPDATE storage_destinations SET is_default = 0 WHERE is_default = 1");
  sql.exec(
    `INSERT INTO storage_destinations (destination_id, endpoint, bucket, region, prefix, path_style, is_default,
       credentials_sealed, access_key_tail, secret_key_tail, verified_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    d.destination_id,
    d.endpoint,
    d.bucket,
    d.region,
    d.prefix,
    d.path_style ? 1 : 0,
    d.default ? 1 : 0,
    sealed,
    last4(d.access_key_id),
    last4(d.secret_access_key),
    now,
    now,
  );
}

/** Makes `id` the default (or no longer the default); at most one destination is. */
export function setDefault(sql: SqlStorage, id: string, isDefault: boolean): void {
  if (isDefault) sql.exec("UPDATE storage_destinations SET is_default = 0 WHERE is_default = 1");
  sql.exec("UPDATE storage_destinations SET is_default = ? WHERE destination_id = ?", isDefault ? 1 : 0, id);
}

export function markDestinationDeleted(sql: SqlStorage, id: string, now: string): void {
  sql.exec("UPDATE storage_destinations SET deleted_at = ?, is_default = 0 WHERE destination_id = ?", now, id);
}

/** The destination with its key pair opened, for one delivery; null when it is deleted or unknown. */
export async function openDestination(
  sql: SqlStorage,
  encryptionKey: string | undefined,
  id: string,
): Promise<(DestinationRecord & S3Target) | null> {
  const rec = destinationRow(sql, id);
  if (!rec) return null;
  const { credentials_sealed } = sql
    .exec<{ credentials_sealed: string }>("SELECT credentials_sealed FROM storage_destinations WHERE destination_id = ?", id)
    .one();
  const creds = JSON.parse(await unseal(encryptionKey, credentials_sealed, id)) as {
    access_key_id: string;
    secret_access_key: string;
  };
  return { ...rec, ...creds };
}

/** Whether the tenant has a default destination (a create without `output_destination_id` delivers there). */
export function hasDefaultDestination(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM storage_destinations WHERE deleted_at IS NULL AND is_default = 1 LIMIT 1").toArray().length > 0;
}
