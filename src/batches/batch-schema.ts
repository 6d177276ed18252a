/**
 * The batch object's SQLite schema (docs/storage/batch-object.md): the batch in one row, each item
 * in a row of its own (a batch of 10,000 items is 10,000 rows, never one value), and the batch's
 * webhook event and deliveries in the tables task objects use. The same class, under the name
 * `index:<mode>:<tenant_id>`, keeps a tenant's list of batches (`batch_index`) and nothing else.
 */
import type { Migration } from "../storage/migrations";
import { WEBHOOK_TABLES_SQL } from "../webhooks/delivery-rows";

const COUNT_COLUMNS = ["n_total", "n_queued", "n_running", "n_succeeded", "n_failed", "n_canceled"] as const;

export const BATCH_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "batch, items, batch index, webhook events and deliveries",
    up(sql) {
      sql.exec(`
        CREATE TABLE batch (
          id INTEGER PRIMARY KEY CHECK (id = 1), batch_id TEXT NOT NULL, tenant_id TEXT NOT NULL, mode TEXT NOT NULL,
          idempotency_key TEXT NOT NULL, request_hash TEXT NOT NULL, operation TEXT NOT NULL, caller TEXT NOT NULL,
          status TEXT NOT NULL, concurrency INTEGER NOT NULL, max_credits TEXT, estimated_credits TEXT NOT NULL,
          charged_credits TEXT NOT NULL, refunded_credits TEXT NOT NULL,
          callback TEXT, callback_state TEXT, metadata TEXT NOT NULL, origin TEXT NOT NULL, request_id TEXT NOT NULL,
          paused_until INTEGER, next_check_at INTEGER, created_at TEXT NOT NULL, started_at TEXT, completed_at TEXT,
          cancel_requested_at TEXT, output_file_id TEXT);
        CREATE TABLE items (
          seq INTEGER PRIMARY KEY, custom_id TEXT NOT NULL UNIQUE, body TEXT NOT NULL, estimate TEXT NOT NULL,
          status TEXT NOT NULL, task_id TEXT, reserved TEXT NOT NULL, refunded TEXT NOT NULL, error TEXT, result TEXT,
          started_at TEXT, ended_at TEXT);
        CREATE INDEX items_status ON items (status, seq);
        CREATE INDEX items_task ON items (task_id);
        CREATE TABLE batch_index (batch_id TEXT PRIMARY KEY, created_at TEXT NOT NULL);
        CREATE INDEX batch_index_newest ON batch_index (created_at DESC, batch_id DESC);
        ${WEBHOOK_TABLES_SQL}
      `);
    },
  },
  {
    version: 2,
    name: "running item counts; the output file's expiry",
    up(sql) {
      // Kept in step with each item's status (in the same write), so no step counts the items;
      // an object made before counts its rows here, once.
      for (const c of COUNT_COLUMNS) sql.exec(`ALTER TABLE batch ADD COLUMN ${c} INTEGER NOT NULL DEFAULT 0`);
      sql.exec("ALTER TABLE batch ADD COLUMN output_expires_at TEXT");
      sql.exec("ALTER TABLE batch ADD COLUMN output_expired_at TEXT");
      sql.exec(`
        UPDATE batch SET
          n_total = (SELECT COUNT(*) FROM items),
          n_queued = (SELECT COUNT(*) FROM items WHERE status = 'queued'),
          n_running = (SELECT COUNT(*) FROM items WHERE status = 'running'),
          n_succeeded = (SELECT COUNT(*) FROM items WHERE status = 'succeeded'),
          n_failed = (SELECT COUNT(*) FROM items WHERE status = 'failed'),
          n_canceled = (SELECT COUNT(*) FROM items WHERE status = 'canceled')
      `);
    },
  },
];
