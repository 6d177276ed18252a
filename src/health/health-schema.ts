import type { Migration } from "../storage/migrations";

/** The HealthObject's schema (docs/storage/health-object.md). */
export const HEALTH_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "attempts, circuits, minutes, incidents",
    up(sql) {
      sql.exec(`
        CREATE TABLE attempts (
          seq INTEGER PRIMARY KEY, upstream_model TEXT NOT NULL, at INTEGER NOT NULL, tenant TEXT NOT NULL,
          task TEXT NOT NULL, failed INTEGER NOT NULL, code TEXT);
        CREATE INDEX attempts_by_route ON attempts (upstream_model, at);
        CREATE TABLE circuits (
          upstream_model TEXT PRIMARY KEY, state TEXT NOT NULL, opened_at INTEGER, retry_at INTEGER,
          probe_task TEXT, probe_until INTEGER, incident_id INTEGER);
        CREATE TABLE minutes (
          upstream_model TEXT NOT NULL, minute INTEGER NOT NULL, accepted INTEGER NOT NULL, refused INTEGER NOT NULL,
          request_refused INTEGER NOT NULL, poll_errors INTEGER NOT NULL, completed INTEGER NOT NULL,
          failed INTEGER NOT NULL, output_failed INTEGER NOT NULL, submit_ms INTEGER NOT NULL,
          first_progress INTEGER NOT NULL, first_progress_ms INTEGER NOT NULL, durations TEXT NOT NULL,
          PRIMARY KEY (upstream_model, minute));
        CREATE TABLE incidents (
          id INTEGER PRIMARY KEY, upstream_model TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER,
          failures INTEGER NOT NULL, codes TEXT NOT NULL);
      `);
    },
  },
];
