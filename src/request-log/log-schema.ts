/** The request log object's schema, one migration per change (docs/storage/request-log-object.md). */
import type { Migration } from "../storage/migrations";

export const REQUEST_LOG_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "entries, shard, charges, hours",
    up(sql) {
      // An hour shard's entries; `seq` orders entries that arrived in the same millisecond.
      sql.exec(`CREATE TABLE IF NOT EXISTS entries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        request_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        method TEXT NOT NULL,
        route TEXT NOT NULL,
        status INTEGER NOT NULL,
        error_code TEXT,
        duration_ms INTEGER NOT NULL,
        key_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        door TEXT NOT NULL,
        model TEXT,
        task_id TEXT,
        batch_id TEXT,
        charged TEXT,
        settled INTEGER NOT NULL,
        user_agent TEXT,
        replay_of TEXT,
        recovered INTEGER NOT NULL DEFAULT 0,
        attempts TEXT,
        request_body TEXT,
        response_body TEXT
      )`);
      sql.exec("CREATE INDEX IF NOT EXISTS entries_at ON entries (at, seq)");
      sql.exec("CREATE INDEX IF NOT EXISTS entries_request ON entries (request_id)");
      sql.exec("CREATE INDEX IF NOT EXISTS entries_task ON entries (task_id) WHERE task_id IS NOT NULL");
      // What the shard is, once it has entries: whose hour, when it goes, whether the directory knows it.
      sql.exec(`CREATE TABLE IF NOT EXISTS shard (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        tenant_id TEXT NOT NULL,
        hour INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        announced INTEGER NOT NULL DEFAULT 0
      )`);
      // The ledger's settlements of this hour's requests, one row per ledger row (src/request-log/ledger-facts.ts).
      sql.exec("CREATE TABLE IF NOT EXISTS charges (charge_id TEXT PRIMARY KEY, request_id TEXT NOT NULL, amount TEXT NOT NULL)");
      sql.exec("CREATE INDEX IF NOT EXISTS charges_request ON charges (request_id)");
      // The tenant's directory: which hours have entries, and when each goes.
      sql.exec("CREATE TABLE IF NOT EXISTS hours (hour INTEGER PRIMARY KEY, expires_at INTEGER NOT NULL)");
    },
  },
];
