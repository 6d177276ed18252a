/**
 * The `provider_keys` rows of an AccountObject: a tenant's own credential for one provider, sealed
 * before it reaches the object (bound to `<tenant>:<provider>`, src/provider-keys/seal.ts), with how
 * its routes are ordered against the platform's and which models it serves. One row per provider.
 */

export const PROVIDER_KEYS_TABLE_SQL = `
  CREATE TABLE provider_keys (
    provider TEXT PRIMARY KEY, key_sealed TEXT NOT NULL, last_four TEXT NOT NULL, base_url TEXT,
    mode TEXT NOT NULL, models TEXT, failover INTEGER NOT NULL, status TEXT NOT NULL, status_reason TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, last_used_at TEXT, invalid_mailed_at TEXT);
`;

export type ProviderKeyMode = "prefer" | "fallback" | "only";
export const PROVIDER_KEY_MODES: readonly ProviderKeyMode[] = ["prefer", "fallback", "only"];
/**
 * `active`: checked with the provider and used for the tenant's tasks; `unchecked`: used too, but the
 * provider documents no call to check it with (the first task tells); `invalid`: the provider
 * refused it on a task (401, 403, quota), so it serves nothing.
 */
export type ProviderKeyStatus = "active" | "unchecked" | "invalid";

/** What every read shows: never the key, only its last four characters. */
export interface ProviderKeyRecord {
  provider: string;
  mode: ProviderKeyMode;
  /** The catalog models it serves; null: every model with a route to the provider. */
  models: string[] | null;
  /** With `only`: whether a task may move to other providers' routes of the same model (on the platform's keys). */
  failover: boolean;
  base_url: string | null;
  last4: string;
  status: ProviderKeyStatus;
  /** Why it is invalid (the provider's answer, made safe), why it is unchecked, or what its check warned of. */
  status_reason: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
}

/** What admission needs to order a task's routes (no secret). */
export type ProviderKeyPlan = Pick<ProviderKeyRecord, "provider" | "mode" | "models" | "failover" | "status">;

type Row = {
  provider: string;
  last_four: string;
  base_url: string | null;
  mode: ProviderKeyMode;
  models: string | null;
  failover: number;
  status: ProviderKeyStatus;
  status_reason: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
};

const COLUMNS =
  "provider, last_four, base_url, mode, models, failover, status, status_reason, created_at, updated_at, last_used_at";

function record(r: Row): ProviderKeyRecord {
  return {
    provider: r.provider,
    mode: r.mode,
    models: r.models === null ? null : (JSON.parse(r.models) as string[]),
    failover: r.failover === 1,
    base_url: r.base_url,
    last4: r.last_four,
    status: r.status,
    status_reason: r.status_reason,
    created_at: r.created_at,
    updated_at: r.updated_at,
    last_used_at: r.last_used_at,
  };
}

export function providerKeyRows(sql: SqlStorage): ProviderKeyRecord[] {
  return sql.exec<Row>(`SELECT ${COLUMNS} FROM provider_keys ORDER BY provider`).toArray().map(record);
}

export function providerKeyRow(sql: SqlStorage, provider: string): ProviderKeyRecord | null {
  const r = sql.exec<Row>(`SELECT ${COLUMNS} FROM provider_keys WHERE provider = ?`, provider).toArray()[0];
  return r ? record(r) : null;
}

/** How the tenant's keys route its tasks: an invalid key serves nothing, but its `only` still stands. */
export function keyPlans(sql: SqlStorage): ProviderKeyPlan[] {
  return providerKeyRows(sql).map(({ provider, mode, models, failover, status }) => ({
    provider,
    mode,
    models,
    failover,
    status,
  }));
}

export interface ProviderKeyWrite {
  provider: string;
  key_sealed: string;
  last4: string;
  base_url: string | null;
  mode: ProviderKeyMode;
  models: string[] | null;
  failover: boolean;
  /** How the provider's check went: `active`, or `unchecked` where it documents no such check. */
  status: "active" | "unchecked";
  status_reason: string | null;
}

/** Adds or replaces the tenant's key for the provider: a new key serves again, as its check found it. */
export function putProviderKey(sql: SqlStorage, k: ProviderKeyWrite, now: string): void {
  sql.exec(
    `INSERT INTO provider_keys (provider, key_sealed, last_four, base_url, mode, models, failover, status, status_reason, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (provider) DO UPDATE SET key_sealed = excluded.key_sealed, last_four = excluded.last_four,
       base_url = excluded.base_url, mode = excluded.mode, models = excluded.models, failover = excluded.failover,
       status = excluded.status, status_reason = excluded.status_reason, invalid_mailed_at = NULL,
       updated_at = excluded.updated_at`,
    k.provider,
    k.key_sealed,
    k.last4,
    k.base_url,
    k.mode,
    k.models === null ? null : JSON.stringify(k.models),
    k.failover ? 1 : 0,
    k.status,
    k.status_reason,
    now,
    now,
  );
}

/** A key's routing changed without a new key: its mode, models and failover (its status stays). */
export function updateProviderKeyRouting(
  sql: SqlStorage,
  provider: string,
  change: Pick<ProviderKeyWrite, "mode" | "models" | "failover">,
  now: string,
): void {
  sql.exec(
    "UPDATE provider_keys SET mode = ?, models = ?, failover = ?, updated_at = ? WHERE provider = ?",
    change.mode,
    change.models === null ? null : JSON.stringify(change.models),
    change.failover ? 1 : 0,
    now,
    provider,
  );
}

export function deleteProviderKey(sql: SqlStorage, provider: string): void {
  sql.exec("DELETE FROM provider_keys WHERE provider = ?", provider);
}

/** The sealed key and its host, for a task of the tenant on that provider's route; null when gone or invalid (an unchecked key serves). */
export function sealedCredential(sql: SqlStorage, provider: string): { key_sealed: string; base_url: string | null } | null {
  const r = sql
    .exec<{ key_sealed: string; base_url: string | null }>(
      "SELECT key_sealed, base_url FROM provider_keys WHERE provider = ? AND status != 'invalid'",
      provider,
    )
    .toArray()[0];
  return r ?? null;
}

/** How stale `last_used_at` may be: a busy key is written once a minute, not at every call. */
const TOUCH_EVERY_MS = 60_000;

export function touchProviderKey(sql: SqlStorage, provider: string, nowMs: number): void {
  sql.exec(
    "UPDATE provider_keys SET last_used_at = ? WHERE provider = ? AND (last_used_at IS NULL OR last_used_at < ?)",
    new Date(nowMs).toISOString(),
    provider,
    new Date(nowMs - TOUCH_EVERY_MS).toISOString(),
  );
}

/**
 * The provider refused the key on a task: it becomes invalid. Answers true only the first time
 * since it was last put (the owners are mailed once), false when it was already invalid or is gone.
 */
export function markProviderKeyInvalid(sql: SqlStorage, provider: string, reason: string, now: string): boolean {
  const r = sql
    .exec<{ invalid_mailed_at: string | null }>("SELECT invalid_mailed_at FROM provider_keys WHERE provider = ?", provider)
    .toArray()[0];
  if (!r) return false;
  sql.exec(
    "UPDATE provider_keys SET status = 'invalid', status_reason = ?, updated_at = ?, invalid_mailed_at = COALESCE(invalid_mailed_at, ?) WHERE provider = ?",
    reason,
    now,
    now,
    provider,
  );
  return r.invalid_mailed_at === null;
}

/** Whether the tenant holds a key that can serve (active or unchecked). */
export function hasUsableProviderKey(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM provider_keys WHERE status <> 'invalid' LIMIT 1").toArray().length > 0;
}
