/** The TaskObject's schema, one migration per change (docs/storage/task-object.md). */
import { addColumnIfMissing, type Baseline, type Migration } from "../storage/migrations";
import { WEBHOOK_TABLES_SQL } from "../webhooks/delivery-rows";

/** A refusal at admission (content review): its request hash and the error it answered, once per object. */
const REFUSAL_TABLE_SQL = `
  CREATE TABLE IF NOT EXISTS refusal (
    id INTEGER PRIMARY KEY CHECK (id = 1), tenant_id TEXT NOT NULL, request_hash TEXT NOT NULL,
    error TEXT NOT NULL, at TEXT NOT NULL)`;

export const TASK_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "admission, drills, task, events",
    up(sql) {
      sql.exec(`
        CREATE TABLE IF NOT EXISTS admission (
          id INTEGER PRIMARY KEY CHECK (id = 1), tenant_id TEXT NOT NULL, request_hash TEXT NOT NULL,
          state TEXT NOT NULL, lease_until INTEGER NOT NULL, epoch INTEGER NOT NULL DEFAULT 1);
        CREATE TABLE IF NOT EXISTS drills (point TEXT PRIMARY KEY, at TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS task (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS events (
          seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT);
      `);
    },
  },
  {
    version: 2,
    name: "task.plan: the parts of the record fixed at admission, apart",
    up(sql) {
      // Records written before keep everything in `record` (plan NULL) until their next save.
      addColumnIfMissing(sql, "task", "plan", "TEXT");
    },
  },
  {
    version: 3,
    name: "refusal: a request refused at admission by content review, kept against its key",
    up(sql) {
      sql.exec(REFUSAL_TABLE_SQL);
    },
  },
  {
    version: 4,
    name: "webhook_events, webhook_deliveries, webhook_attempts: the task's events and each endpoint's delivery of them",
    up(sql) {
      sql.exec(WEBHOOK_TABLES_SQL);
    },
  },
];

/** What TASK_MIGRATIONS build, in one step, for each new task object (one per task). */
export const TASK_BASELINE: Baseline = {
  version: 4,
  sql: `
    CREATE TABLE admission (
      id INTEGER PRIMARY KEY CHECK (id = 1), tenant_id TEXT NOT NULL, request_hash TEXT NOT NULL,
      state TEXT NOT NULL, lease_until INTEGER NOT NULL, epoch INTEGER NOT NULL DEFAULT 1);
    CREATE TABLE drills (point TEXT PRIMARY KEY, at TEXT NOT NULL);
    CREATE TABLE task (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL, plan TEXT);
    CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT);
    ${REFUSAL_TABLE_SQL};
    ${WEBHOOK_TABLES_SQL}`,
};
