/**
 * The `api_keys` rows of an AccountObject (docs/storage/account-object.md): reads and writes in
 * SQL, kept out of the object's class so that it stays about the ledger.
 */
import type { KeyMode, Permission } from "../keys/api-keys";
import type { KeyLimits } from "./key-limits";

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
  /** `disabled`: turned off by `PATCH /v1/keys/{key_id}` and refused until turned on again. */
  status: "active" | "disabled" | "revoked" | "expired";
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
  /** Credits per period and the models and capabilities the key may use; null: none. */
  limits: KeyLimits | null;
}

type Row = Omit<ApiKeyRecord, "permissions" | "status" | "limits"> & {
  permissions: string;
  status: "active" | "disabled" | "revoked";
  limits: string | null;
};

const COLUMNS =
  "key_id, name, prefix, region, mode, permissions, status, created_at, created_by, last_used_at, expires_at, replaced_by, revoked_at, limits";

export function isExpired(expiresAt: string | null, nowMs: number): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= nowMs;
}

function view(row: Row, nowMs: number): ApiKeyRecord {
  const status = row.status === "revoked" ? "revoked" : isExpired(row.expires_at, nowMs) ? "expired" : row.status;
  return {
    ...row,
    permissions: JSON.parse(row.permissions) as Permission[],
    status,
    limits: row.limits ? (JSON.parse(row.limits) as KeyLimits) : null,
  };
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

/** One page of keys, newest first, after a position (`GET /v1/keys`); `mode` keeps one mode's keys. */
export function apiKeyPage(
  sql: SqlStorage,
  q: { limit: number; mode?: KeyMode; after?: { created_at: string; key_id: string } },
  nowMs = Date.now(),
): { keys: ApiKeyRecord[]; has_more: boolean } {
  const where: string[] = [];
  const args: string[] = [];
  if (q.mode) where.push("mode = ?") && args.push(q.mode);
  if (q.after)
    where.push("(created_at < ? OR (created_at = ? AND key_id < ?))") &&
      args.push(q.after.created_at, q.after.created_at, q.after.key_id);
  const rows = sql
    .exec<Row>(
      `SELECT ${COLUMNS} FROM api_keys ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, key_id DESC LIMIT ?`,
      ...args,
      q.limit + 1,
    )
    .toArray();
  return { keys: rows.slice(0, q.limit).map((r) => view(r, nowMs)), has_more: rows.length > q.limit };
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
  limits?: KeyLimits | null;
  /** Whose limit the key's spend counts under: its own id, or a rotated key's lineage (src/accounts/key-family.ts). */
  lineage?: string;
  /** The lineages of the key that made it and of that key's ancestors, nearest first. */
  ancestors?: string[];
}

/** What a list shows of a key: its fixed part and 4 of its 43 random characters (24 of 256 bits). */
export function keyPrefix(apiKey: string): string {
  return apiKey.slice(0, apiKey.lastIndexOf("_") + 5);
}

export function insertApiKey(sql: SqlStorage, k: NewApiKey, createdAt: string): void {
  sql.exec(
    `INSERT INTO api_keys (key_id, key_hash, region, mode, permissions, status, created_at, name, prefix, created_by, limits, lineage, ancestors)
     VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?)`,
    k.key_id,
    k.key_hash,
    k.region,
    k.mode,
    JSON.stringify(k.permissions),
    createdAt,
    k.name,
    k.prefix,
    k.created_by,
    k.limits ? JSON.stringify(k.limits) : null,
    k.lineage ?? k.key_id,
    JSON.stringify(k.ancestors ?? []),
  );
}

/** What `PATCH /v1/keys/{key_id}` may change; absent fields stay. */
export interface KeyChange {
  name?: string | null;
  /** null removes every limit. */
  limits?: KeyLimits | null;
  disabled?: boolean;
}

export function updateApiKey(sql: SqlStorage, keyId: string, change: KeyChange): void {
  if (change.name !== undefined) sql.exec("UPDATE api_keys SET name = ? WHERE key_id = ?", change.name, keyId);
  if (change.limits !== undefined)
    sql.exec("UPDATE api_keys SET limits = ? WHERE key_id = ?", change.limits ? JSON.stringify(change.limits) : null, keyId);
  if (change.disabled !== undefined)
    sql.exec(
      "UPDATE api_keys SET status = ? WHERE key_id = ? AND status != 'revoked'",
      change.disabled ? "disabled" : "active",
      keyId,
    );
}

/** Only moves forward, so reports from several isolates in any order keep the latest. */
export function touchApiKey(sql: SqlStorage, keyId: string, at: string): void {
  sql.exec("UPDATE api_keys SET last_used_at = ? WHERE key_id = ? AND (last_used_at IS NULL OR last_used_at < ?)", at, keyId, at);
}
