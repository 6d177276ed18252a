/**
 * The `api_keys` rows of an AccountObject (docs/storage/account-object.md): reads and writes in
 * SQL, kept out of the object's class so that it stays about the ledger.
 */
import type { KeyMode, Permission } from "./api-keys";

/**
 * A key as its tenant sees it (never the key itself). `status` is derived: a key whose
 * `expires_at` has passed (the old key of a rotation, after its grace period) is `expired`.
 */
export interface ApiKeyRecord {
  key_id: string;
  name: string | null;
  /** `sk_<region>_<mode>_` and the secret's first 4 characters (null: made before prefixes were kept). */
  prefix: string | null;
  region: string;
  mode: KeyMode;
  permissions: Permission[];
  status: "active" | "revoked" | "expired";
  created_at: string;
  /** A member's email, or `operator` for keys the operator API issued. */
  created_by: string | null;
  /** To the minute: each isolate reports a key's use at most once a minute. */
  last_used_at: string | null;
  /** Set by a rotation: the key stops working at this instant. */
  expires_at: string | null;
  /** The key a rotation issued in its place. */
  replaced_by: string | null;
  revoked_at: string | null;
}

type Row = Omit<ApiKeyRecord, "permissions" | "status"> & { permissions: string; status: "active" | "revoked" };

const COLUMNS =
  "key_id, name, prefix, region, mode, permissions, status, created_at, created_by, last_used_at, expires_at, replaced_by, revoked_at";

export function isExpired(expiresAt: string | null, nowMs: number): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= nowMs;
}

function view(row: Row, nowMs: number): ApiKeyRecord {
  const status = row.status === "revoked" ? "revoked" : isExpired(row.expires_at, nowMs) ? "expired" : "active";
  return { ...row, permissions: JSON.parse(row.permissions) as Permission[], status };
}

export function apiKeyRow(sql: SqlStorage, keyId: string, nowMs = Date.now()): ApiKeyRecord | null {
  const row = sql.exec<Row>(`SELECT ${COLUMNS} FROM api_keys WHERE key_id = ?`, keyId).toArray()[0];
  return row ? view(row, nowMs) : null;
}

/** Newest first. A tenant has a handful of keys: no paging. */
export function apiKeyRows(sql: SqlStorage, nowMs = Date.now()): ApiKeyRecord[] {
  return sql
    .exec<Row>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at DESC, key_id DESC`)
    .toArray()
    .map((r) => view(r, nowMs));
}

export interface NewApiKey {
  key_id: string;
  key_hash: string;
  region: string;
  mode: KeyMode;
  permissions: Permission[];
  name: string | null;
  prefix: string | null;
  created_by: string | null;
}

/** What a list shows of a key: its fixed part and 4 of its 43 random characters (24 of 256 bits). */
export function keyPrefix(apiKey: string): string {
  return apiKey.slice(0, apiKey.lastIndexOf("_") + 5);
}

export function insertApiKey(sql: SqlStorage, k: NewApiKey, createdAt: string): void {
  sql.exec(
    `INSERT INTO api_keys (key_id, key_hash, region, mode, permissions, status, created_at, name, prefix, created_by)
     VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
    k.key_id,
    k.key_hash,
    k.region,
    k.mode,
    JSON.stringify(k.permissions),
    createdAt,
    k.name,
    k.prefix,
    k.created_by,
  );
}

/** Only moves forward, so reports from several isolates in any order keep the latest. */
export function touchApiKey(sql: SqlStorage, keyId: string, at: string): void {
  sql.exec("UPDATE api_keys SET last_used_at = ? WHERE key_id = ? AND (last_used_at IS NULL OR last_used_at < ?)", at, keyId, at);
}
