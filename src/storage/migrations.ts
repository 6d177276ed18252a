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

/**
 * The current schema in one step, for a class that makes many fresh objects (one per task): a new
 * object gets it in one transaction instead of replaying every migration. A test holds it equal
 * to what the migrations build (test/storage/migrations.test.ts).
 */
export interface Baseline {
  version: number;
  sql: string;
}

/** Whether the object has no table of its own yet (the runtime's `_cf_` tables aside). */
function isEmpty(sql: SqlStorage): boolean {
  return (
    sql
      .exec(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' LIMIT 1",
      )
      .toArray().length === 0
  );
}

const VERSION_TABLE =
  "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, updated_at TEXT NOT NULL)";

export function schemaVersion(sql: SqlStorage): number {
  sql.exec(VERSION_TABLE);
  return sql.exec<{ version: number }>("SELECT version FROM schema_version WHERE id = 1").toArray()[0]?.version ?? 0;
}

/** Applies every migration above the stored version, in order; `upTo` stops early (tests build old versions). */
export async function migrate(
  storage: DurableObjectStorage,
  migrations: readonly Migration<any>[],
  upTo = Number.POSITIVE_INFINITY,
  baseline?: Baseline,
): Promise<number> {
  const sql = storage.sql;
  let version: number;
  if (baseline && baseline.version <= upTo && isEmpty(sql)) {
    storage.transactionSync(() => {
      sql.exec(`${baseline.sql};\n${VERSION_TABLE}`);
      setVersion(sql, baseline.version);
    });
    version = baseline.version;
  } else {
    version = schemaVersion(sql);
  }
  for (const m of migrations) {
    if (m.version <= version || m.version > upTo) continue;
    if (m.version !== version + 1) throw new Error(`migration ${m.version} follows ${version}: the list has a gap`);
    const prepared = m.prepare ? await m.prepare(sql) : undefined;
    storage.transactionSync(() => {
      m.up(sql, prepared);
      setVersion(sql, m.version);
    });
    version = m.version;
  }
  return version;
}

/**
 * For a Durable Object's constructor: its SQL storage, with the migrations applied inside
 * blockConcurrencyWhile, so that the object takes no request before its schema is current.
 */
export function migratedSql(ctx: DurableObjectState, migrations: readonly Migration<any>[], baseline?: Baseline): SqlStorage {
  void ctx.blockConcurrencyWhile(() => migrate(ctx.storage, migrations, Number.POSITIVE_INFINITY, baseline));
  return ctx.storage.sql;
}

function setVersion(sql: SqlStorage, version: number): void {
  sql.exec(
    "INSERT INTO schema_version (id, version, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at",
    version,
    new Date().toISOString(),
  );
}

/** For the steps that predate versioning: an object made then may have the column already. */
export function addColumnIfMissing(sql: SqlStorage, table: string, column: string, definition: string): void {
  const columns = sql.exec<{ name: string }>(`PRAGMA table_info(${table})`).toArray();
  if (!columns.some((c) => c.name === column)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
}
