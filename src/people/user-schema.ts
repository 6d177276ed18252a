/** The UserObject's schema, one migration per change (docs/storage/user-object.md). */
import type { Migration } from "../storage/migrations";

export const USER_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "user, tenants, sign_in_codes, sessions",
    up(sql) {
      sql.exec(`
        CREATE TABLE user (
          user_id TEXT PRIMARY KEY, email TEXT NOT NULL, created_at TEXT NOT NULL, last_sign_in_at TEXT);
        CREATE TABLE tenants (
          tenant_id TEXT PRIMARY KEY, tenant_name TEXT NOT NULL, added_at TEXT NOT NULL);
        CREATE TABLE sign_in_codes (
          code_id TEXT PRIMARY KEY, code_hash TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
          created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, ip TEXT);
        CREATE INDEX sign_in_codes_by_created ON sign_in_codes (created_at DESC);
        CREATE TABLE sessions (
          session_id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, tenant_id TEXT,
          created_at INTEGER NOT NULL, last_seen_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
          ended_at INTEGER, ip TEXT, user_agent TEXT);
      `);
    },
  },
];
