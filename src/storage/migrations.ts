/**
 * Versioned SQLite schemas for Durable Objects. Each class has one ordered list of migrations;
 * the version reached is stored in `schema_version`, and the list is applied at start, inside
 * blockConcurrencyWhile, so no request sees a half-migrated object. A migration may prepare
 * asynchronously (reading rows and encrypting, say) and then writes synchronously, in one
 * transaction with the new version number, so a crash leaves the object at one version or the next.
 *
 * Objects created before versioning have no `schema_version` row: they count as version 0, and
 * the migrations that describe the schema they may already have are written to be no-ops on it
 * (CREATE TABLE IF NOT EXISTS, a column added only when missing).
 */

export interface Migration<Prepared = unknown> {
  version: number;
  /** What the step does, as the storage documentation names it. */
  name: string;
  prepare?(sql: SqlStorage): Promise<Prepared>;
  up(sql: SqlStorage, prepared: Prepared): void;
}

export function schemaVersion(sql: SqlStorage): number {
  sql.exec(
    "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, updated_at TEXT NOT NULL)",
  );
  return sql.exec<{ version: number }>("SELECT version FROM schema_version WHERE id = 1").toArray()[0]?.version ?? 0;
}

/** Applies every migration above the stored version, in order; `upTo` stops early (tests build old versions). */
export async function migrate(
  storage: DurableObjectStorage,
  migrations: readonly Migration<any>[],
  upTo = Number.POSITIVE_INFINITY,
): Promise<number> {
  const sql = storage.sql;
  let version = schemaVersion(sql);
  for (const m of migrations) {
    if (m.version <= version || m.version > upTo) continue;
    if (m.version !== version + 1) throw new Error(`migration ${m.version} follows ${version}: the list has a gap`);
    const prepared = m.prepare ? await m.prepare(sql) : undefined;
    storage.transactionSync(() => {
      m.up(sql, prepared);
      sql.exec(
        "INSERT INTO schema_version (id, version, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at",
        m.version,
        new Date().toISOString(),
      );
    });
    version = m.version;
  }
  return version;
}

/** For the steps that predate versioning: an object made then may have the column already. */
export function addColumnIfMissing(sql: SqlStorage, table: string, column: string, definition: string): void {
  const columns = sql.exec<{ name: string }>(`PRAGMA table_info(${table})`).toArray();
  if (!columns.some((c) => c.name === column)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
}
