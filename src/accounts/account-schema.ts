/**
 * The AccountObject's schema, one migration per change, oldest first (docs/storage/account-object.md).
 * Versions 1–3 predate versioning and are no-ops on an object that already has them.
 */
import { AUDIT_TABLE_SQL } from "../audit/audit-store";
import { CHECKOUTS_TABLE_SQL } from "../billing/payments/checkout-rows";
import { STORAGE_DESTINATIONS_TABLE_SQL } from "../destinations/destination-rows";
import type { Env } from "../env";
import { seal } from "../lib/sealed";
import { OAUTH_TABLES_SQL } from "../oauth/grant-store";
import { MEMBERS_TABLE_SQL } from "../people/members-store";
import { PROVIDER_KEYS_TABLE_SQL } from "../provider-keys/rows";
import { UPLOAD_EXPIRY_TABLE_SQL } from "../retention/upload-expiry";
import { addColumnIfMissing, type Migration } from "../storage/migrations";
import { DELIVERY_LOG_TABLE_SQL } from "../webhooks/delivery-log";
import { WEBHOOK_TABLES_SQL } from "../webhooks/delivery-rows";
import { WEBHOOK_ENDPOINTS_TABLE_SQL } from "../webhooks/endpoint-rows";
import { SEND_BUDGET_TABLE_SQL } from "../webhooks/send-budget";
import { backfillFamilies, KEY_FAMILY_SPEND_TABLE_SQL } from "./key-family";
import { KEY_ALERTS_TABLE_SQL, KEY_SPEND_TABLE_SQL } from "./key-spend";
import { QUOTES_TABLE_SQL } from "./quote-rows";
import { backfillUsage, USAGE_TABLE_SQL } from "./usage";

export function accountMigrations(env: Pick<Env, "STORAGE_ENCRYPTION_KEY">): Migration<any>[] {
  return [
    {
      version: 1,
      name: "tenant, api_keys, credit_grants, signing_keys, reservations, totals, tasks",
      up(sql) {
        sql.exec(`
          CREATE TABLE IF NOT EXISTS tenant (
            tenant_id TEXT PRIMARY KEY, name TEXT NOT NULL, status TEXT NOT NULL,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
          CREATE TABLE IF NOT EXISTS api_keys (
            key_id TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, region TEXT NOT NULL,
            permissions TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT);
          CREATE TABLE IF NOT EXISTS credit_grants (
            grant_id TEXT PRIMARY KEY, amount TEXT NOT NULL, source TEXT NOT NULL, created_at TEXT NOT NULL);
          CREATE TABLE IF NOT EXISTS signing_keys (
            id TEXT PRIMARY KEY, secret TEXT NOT NULL, status TEXT NOT NULL,
            created_at TEXT NOT NULL, retired_at TEXT);
          CREATE TABLE IF NOT EXISTS reservations (
            task_id TEXT PRIMARY KEY, amount TEXT NOT NULL, status TEXT NOT NULL,
            captured_amount TEXT NOT NULL DEFAULT '0', created_at TEXT NOT NULL, settled_at TEXT);
          CREATE TABLE IF NOT EXISTS totals (
            id INTEGER PRIMARY KEY CHECK (id = 1), granted TEXT NOT NULL, captured TEXT NOT NULL, reserved TEXT NOT NULL);
          INSERT OR IGNORE INTO totals (id, granted, captured, reserved) VALUES (1, '0', '0', '0');
          CREATE TABLE IF NOT EXISTS tasks (
            task_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL,
            capability TEXT NOT NULL, model TEXT NOT NULL, updated_at TEXT NOT NULL);
          CREATE INDEX IF NOT EXISTS tasks_by_created ON tasks (created_at DESC, task_id DESC);
        `);
      },
    },
    {
      version: 2,
      name: "tenant.rate_limit_per_minute",
      up(sql) {
        addColumnIfMissing(sql, "tenant", "rate_limit_per_minute", "INTEGER");
      },
    },
    {
      version: 3,
      name: "api_keys.mode (keys made before are live)",
      up(sql) {
        addColumnIfMissing(sql, "api_keys", "mode", "TEXT NOT NULL DEFAULT 'live'");
      },
    },
    {
      version: 4,
      name: "reservations.lease_until (open reservations that expire unless confirmed or settled)",
      up(sql) {
        sql.exec("ALTER TABLE reservations ADD COLUMN lease_until INTEGER");
        sql.exec(
          "CREATE INDEX reservations_by_lease ON reservations (lease_until) WHERE status = 'open' AND lease_until IS NOT NULL",
        );
      },
    },
    {
      version: 5,
      name: "signing_keys.secret sealed at rest (secret_sealed)",
      async prepare(sql) {
        const rows = sql.exec<{ id: string; secret: string }>("SELECT id, secret FROM signing_keys").toArray();
        return Promise.all(rows.map(async (r) => ({ id: r.id, sealed: await seal(env.STORAGE_ENCRYPTION_KEY, r.secret, r.id) })));
      },
      up(sql, sealed: { id: string; sealed: string }[]) {
        sql.exec(`
          CREATE TABLE signing_keys_v5 (
            id TEXT PRIMARY KEY, secret_sealed TEXT NOT NULL, status TEXT NOT NULL,
            created_at TEXT NOT NULL, retired_at TEXT);
          INSERT INTO signing_keys_v5 (id, secret_sealed, status, created_at, retired_at)
            SELECT id, '', status, created_at, retired_at FROM signing_keys;
          DROP TABLE signing_keys;
          ALTER TABLE signing_keys_v5 RENAME TO signing_keys;
        `);
        for (const s of sealed) sql.exec("UPDATE signing_keys SET secret_sealed = ? WHERE id = ?", s.sealed, s.id);
      },
    },
    {
      version: 6,
      name: "usage_entries (each settlement's credits and counters, for GET /v1/usage)",
      up(sql) {
        sql.exec(USAGE_TABLE_SQL);
        backfillUsage(sql);
      },
    },
    {
      version: 7,
      name: "members, audit_log (console sign-in: who belongs to the tenant, and what they did)",
      up(sql) {
        sql.exec(MEMBERS_TABLE_SQL);
        sql.exec(AUDIT_TABLE_SQL);
      },
    },
    {
      version: 8,
      name: "api_keys name, prefix, created_by, last_used_at, expires_at, replaced_by; signing key rotation; checkouts",
      up(sql) {
        sql.exec(`
          ALTER TABLE api_keys ADD COLUMN name TEXT;
          ALTER TABLE api_keys ADD COLUMN prefix TEXT;
          ALTER TABLE api_keys ADD COLUMN created_by TEXT;
          ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
          ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
          ALTER TABLE api_keys ADD COLUMN replaced_by TEXT;
          UPDATE api_keys SET created_by = 'operator';
          ALTER TABLE signing_keys ADD COLUMN rotated_at TEXT;
          ALTER TABLE signing_keys ADD COLUMN previous_secret_sealed TEXT;
          ALTER TABLE signing_keys ADD COLUMN previous_until TEXT;
          ${CHECKOUTS_TABLE_SQL}
        `);
      },
    },
    {
      version: 9,
      name: "tasks.mode (each key mode lists its own tasks; tasks listed before are live)",
      up(sql) {
        addColumnIfMissing(sql, "tasks", "mode", "TEXT NOT NULL DEFAULT 'live'");
      },
    },
    {
      version: 10,
      name: "oauth_grants, oauth_tokens (MCP clients connected by members: grants, hashed codes and tokens)",
      up(sql) {
        sql.exec(OAUTH_TABLES_SQL);
      },
    },
    {
      version: 11,
      name: "tenant.safety_policy (the operator's content review policy for the tenant)",
      up(sql) {
        addColumnIfMissing(sql, "tenant", "safety_policy", "TEXT");
      },
    },
    {
      version: 12,
      name: "api_keys.limits, reservations.key_id, key_spend (each key's holds and captures per day), key_alerts",
      up(sql) {
        sql.exec(`
          ALTER TABLE api_keys ADD COLUMN limits TEXT;
          ALTER TABLE reservations ADD COLUMN key_id TEXT;
          CREATE INDEX reservations_by_key ON reservations (key_id, created_at) WHERE key_id IS NOT NULL;
          ${KEY_SPEND_TABLE_SQL}
          ${KEY_ALERTS_TABLE_SQL}
        `);
      },
    },
    {
      version: 13,
      name: "quotes (binding price quotes: what a create may be charged at most, used by one task)",
      up(sql) {
        sql.exec(QUOTES_TABLE_SQL);
      },
    },
    {
      version: 14,
      name: "webhook_endpoints (where events go, which, each one's sealed secret), webhook_delivery_log, the account's own webhook events",
      up(sql) {
        sql.exec(WEBHOOK_ENDPOINTS_TABLE_SQL);
        sql.exec(DELIVERY_LOG_TABLE_SQL);
        sql.exec(WEBHOOK_TABLES_SQL);
      },
    },
    {
      version: 15,
      name: "tenant.output_retention_days, upload_expiry (how long outputs and uploads are kept; when each upload goes)",
      up(sql) {
        addColumnIfMissing(sql, "tenant", "output_retention_days", "INTEGER");
        sql.exec(UPLOAD_EXPIRY_TABLE_SQL);
      },
    },
    {
      version: 16,
      name: "provider_keys (the tenant's own provider credentials, sealed, and how its routes use them)",
      up(sql) {
        sql.exec(PROVIDER_KEYS_TABLE_SQL);
      },
    },
    {
      version: 17,
      name: "storage_destinations (the tenant's S3-compatible buckets for outputs, each one's sealed key pair)",
      up(sql) {
        sql.exec(STORAGE_DESTINATIONS_TABLE_SQL);
      },
    },
    {
      version: 18,
      name: "webhook_manual_sends (resends, recovers and test events of the last hour: the budgets they spend, a recover's pacing)",
      up(sql) {
        sql.exec(SEND_BUDGET_TABLE_SQL);
      },
    },
    {
      version: 19,
      name: "webhook_endpoints.mode, webhook_delivery_log.mode (each key mode has its own endpoints and deliveries)",
      up(sql) {
        addColumnIfMissing(sql, "webhook_endpoints", "mode", "TEXT NOT NULL DEFAULT 'live'");
        addColumnIfMissing(sql, "webhook_delivery_log", "mode", "TEXT NOT NULL DEFAULT 'live'");
        // Every endpoint so far is live, and so is every delivery to one; a callback is its task's.
        sql.exec(`UPDATE webhook_delivery_log SET mode = 'test'
          WHERE endpoint_id IS NULL AND task_id IN (SELECT task_id FROM tasks WHERE mode = 'test')`);
        sql.exec("CREATE INDEX webhook_delivery_log_by_mode ON webhook_delivery_log (mode, created_at DESC, delivery_id DESC)");
      },
    },
    {
      version: 20,
      name: "api_keys.lineage, api_keys.ancestors, key_family_spend (a key's limit bounds what it and the keys it made spend)",
      up(sql) {
        sql.exec(`
          ALTER TABLE api_keys ADD COLUMN lineage TEXT;
          ALTER TABLE api_keys ADD COLUMN ancestors TEXT;
          CREATE INDEX api_keys_by_lineage ON api_keys (lineage, created_at);
          ${KEY_FAMILY_SPEND_TABLE_SQL}
        `);
        backfillFamilies(sql);
      },
    },
    {
      version: 21,
      name: "tenant.request_body_logging, tenant.request_log_retention_days, reservations.request_id (each charge names its request), log_forward",
      up(sql) {
        addColumnIfMissing(sql, "tenant", "request_body_logging", "TEXT");
        addColumnIfMissing(sql, "tenant", "request_log_retention_days", "INTEGER");
        addColumnIfMissing(sql, "reservations", "request_id", "TEXT");
        sql.exec(
          "CREATE INDEX IF NOT EXISTS reservations_settled_for_log ON reservations (settled_at) WHERE request_id IS NOT NULL",
        );
        sql.exec("CREATE TABLE IF NOT EXISTS log_forward (id INTEGER PRIMARY KEY CHECK (id = 1), settled_at TEXT NOT NULL)");
      },
    },
  ];
}
