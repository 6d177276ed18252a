/**
 * The batch object's SQLite schema (docs/storage/batch-object.md): the batch in one row, each item
 * in a row of its own (a batch of 10,000 items is 10,000 rows, never one value), and the batch's
 * webhook event and deliveries in the tables task objects use. The same class, under the name
 * `index:<mode>:<tenant_id>`, keeps a tenant's list of batches (`batch_index`) and nothing else.
 */
import type { Migration } from "../storage/migrations";
import { WEBHOOK_TABLES_SQL } from "../webhooks/delivery-rows";

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
];
