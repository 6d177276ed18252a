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
  {
    version: 2,
    name: "log_exports, log_export_cursors",
    up(sql) {
      // The directory's exports (src/request-log/exports/): where each goes, its schedule, what happened last.
      sql.exec(`CREATE TABLE IF NOT EXISTS log_exports (
        export_id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        kind TEXT NOT NULL,
        url TEXT,
        header_names TEXT NOT NULL,
        headers_sealed TEXT,
        destination_id TEXT,
        prefix TEXT,
        created_at INTEGER NOT NULL,
        done_hour INTEGER NOT NULL,
        next_run_at INTEGER NOT NULL,
        failures INTEGER NOT NULL,
        last_run_at INTEGER,
        last_success_at INTEGER,
        last_error TEXT,
        delivered_count INTEGER NOT NULL
      )`);
      // Per export, the last entry sent of each hour still open (a late write may still land in it).
      sql.exec(`CREATE TABLE IF NOT EXISTS log_export_cursors (
        export_id TEXT NOT NULL,
        hour INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (export_id, hour)
      )`);
    },
  },
];
