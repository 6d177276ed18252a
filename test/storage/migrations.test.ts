/**
 * Every Durable Object starts from each earlier schema version — including objects made before
 * versioning, which have tables but no version — and the migrations bring it to the current one
 * keeping every row (and sealing the secrets that were stored in clear).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { accountMigrations } from "../../src/accounts/account-schema";
import { DIRECTORY_MIGRATIONS } from "../../src/directory/directory-object";
import { unseal } from "../../src/lib/sealed";
import { migrate, schemaVersion } from "../../src/storage/migrations";
import { upgradeRecord } from "../../src/tasks/record-versions";
import { TASK_BASELINE, TASK_MIGRATIONS } from "../../src/tasks/task-schema";
import { rebuildAt } from "../helpers/storage";

const count = (sql: SqlStorage, table: string) => sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).toArray()[0]?.n;

/** Rows of the AccountObject as they could be written at each version. */
function seedAccount(sql: SqlStorage, version: number) {
  sql.exec("INSERT INTO tenant (tenant_id, name, status, created_at, updated_at) VALUES ('ten_x', 'old', 'active', 't', 't')");
  sql.exec(
    "INSERT INTO api_keys (key_id, key_hash, region, permissions, status, created_at) VALUES ('key_1', 'h1', 'us', '[\"chat\"]', 'active', 't')",
  );
  sql.exec("INSERT INTO credit_grants (grant_id, amount, source, created_at) VALUES ('grant_1', '100', 'opening_balance', 't')");
  sql.exec("UPDATE totals SET granted = '100', reserved = '7'");
  sql.exec("INSERT INTO reservations (task_id, amount, status, created_at) VALUES ('task_a:1', '7', 'open', 't')");
  sql.exec(
    "INSERT INTO tasks (task_id, created_at, status, capability, model, updated_at) VALUES ('task_a', 't', 'queued', 'image_generation', 'm', 't')",
  );
  if (version < 5) {
    sql.exec(
      "INSERT INTO signing_keys (id, secret, status, created_at) VALUES ('whk_1', 'whsec_b2xkLXNlY3JldA==', 'active', 't')",
    );
  }
  if (version >= 2) sql.exec("UPDATE tenant SET rate_limit_per_minute = 42");
  if (version >= 3) sql.exec("UPDATE api_keys SET mode = 'test'");
}

describe("AccountObject migrations", () => {
  const migrations = accountMigrations(env);
  const latest = migrations[migrations.length - 1]?.version as number;
  const starts = [
    ...[1, 2, 3].map((v) => ({ version: v, unversioned: true })),
    ...[1, 2, 3, 4].map((v) => ({ version: v, unversioned: false })),
  ];
  it.each(starts)("from version $version (unversioned: $unversioned) keeps every row", async ({ version, unversioned }) => {
    const stub = env.ACCOUNTS.getByName(`migration-${version}-${unversioned}-${Date.now()}`);
    await runInDurableObject(stub, async (_o, state) => {
      await rebuildAt(state.storage, migrations, version, unversioned);
      seedAccount(state.storage.sql, version);
      const sql = state.storage.sql;
      expect(schemaVersion(sql)).toBe(unversioned ? 0 : version);
      expect(await migrate(state.storage, migrations)).toBe(latest);
      for (const table of ["tenant", "api_keys", "credit_grants", "reservations", "tasks", "signing_keys"]) {
        expect(count(sql, table), table).toBe(1);
      }
      expect(sql.exec("SELECT granted, captured, reserved FROM totals").toArray()).toEqual([
        { granted: "100", captured: "0", reserved: "7" },
      ]);
      const tenant = sql.exec("SELECT rate_limit_per_minute FROM tenant").toArray()[0];
      expect(tenant?.rate_limit_per_minute).toBe(version >= 2 ? 42 : null);
      expect(sql.exec("SELECT mode FROM api_keys").toArray()[0]?.mode).toBe(version >= 3 ? "test" : "live");
      // Version 8: keys made before it were the operator's; nothing about their use or end is known.
      expect(sql.exec("SELECT name, prefix, created_by, last_used_at, expires_at, replaced_by FROM api_keys").toArray()).toEqual([
        { name: null, prefix: null, created_by: "operator", last_used_at: null, expires_at: null, replaced_by: null },
      ]);
      expect(sql.exec("SELECT rotated_at, previous_secret_sealed, previous_until FROM signing_keys").toArray()).toEqual([
        { rotated_at: null, previous_secret_sealed: null, previous_until: null },
      ]);
      expect(count(sql, "checkouts")).toBe(0);
      expect(sql.exec("SELECT lease_until FROM reservations").toArray()[0]?.lease_until).toBeNull();
      // The secret stored in clear before version 5 is sealed, and opens to what it was.
      const key = sql.exec<{ secret_sealed: string }>("SELECT secret_sealed FROM signing_keys").toArray()[0];
      expect(key?.secret_sealed).toMatch(/^v1\./);
      expect(key?.secret_sealed).not.toContain("whsec_");
      expect(await unseal(env.STORAGE_ENCRYPTION_KEY, key?.secret_sealed as string, "whk_1")).toBe("whsec_b2xkLXNlY3JldA==");
      // Running again changes nothing.
      expect(await migrate(state.storage, migrations)).toBe(latest);
    });
  });

  it("a sealed secret does not open on another row or under another key", async () => {
    const { seal } = await import("../../src/lib/sealed");
    const sealed = await seal(env.STORAGE_ENCRYPTION_KEY, "whsec_x", "whk_1");
    await expect(unseal(env.STORAGE_ENCRYPTION_KEY, sealed, "whk_2")).rejects.toThrow();
    await expect(unseal(btoa("k".repeat(32)), sealed, "whk_1")).rejects.toThrow();
  });
});

describe("TaskObject and DirectoryObject migrations", () => {
  it("an unversioned task object keeps its record, admission and events", async () => {
    const stub = env.TASKS.getByName(`migration-task-${Date.now()}`);
    await runInDurableObject(stub, async (_o, state) => {
      await rebuildAt(state.storage, TASK_MIGRATIONS, 1, true);
      const sql = state.storage.sql;
      sql.exec(
        "INSERT INTO admission (id, tenant_id, request_hash, state, lease_until) VALUES (1, 'ten_x', 'h', 'committed', 0)",
      );
      sql.exec('INSERT INTO task (id, record) VALUES (1, \'{"task_id":"task_a"}\')');
      sql.exec("INSERT INTO events (at, kind) VALUES ('t', 'reserve')");
      expect(await migrate(state.storage, TASK_MIGRATIONS)).toBe(4);
      for (const table of ["admission", "task", "events"]) expect(count(sql, table)).toBe(1);
      // v3: no refusal (content review) for a key that holds a task.
      expect(count(sql, "refusal")).toBe(0);
      // v4: no webhook event until the task's next terminal save.
      for (const table of ["webhook_events", "webhook_deliveries", "webhook_attempts"]) expect(count(sql, table)).toBe(0);
      // v2: the record stays whole in `record` (no plan yet) until the object next saves it.
      expect(sql.exec("SELECT record, plan FROM task").one()).toEqual({ record: '{"task_id":"task_a"}', plan: null });
    });
  });

  it("a new task object starts from the baseline, which builds what the migrations build", async () => {
    /** Every table and index with its columns, as SQLite describes them. */
    const shape = (sql: SqlStorage) =>
      sql
        .exec<{ type: string; name: string; tbl_name: string }>(
          "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY name",
        )
        .toArray()
        .map((o) => ({
          ...o,
          columns: sql.exec(`PRAGMA ${o.type === "index" ? "index_xinfo" : "table_xinfo"}(${o.name})`).toArray(),
          indexes: o.type === "table" ? sql.exec(`PRAGMA index_list(${o.name})`).toArray() : [],
        }));
    // A task object as the runtime makes it takes the baseline in its constructor.
    const fresh = env.TASKS.getByName(`baseline-${Date.now()}`);
    const viaBaseline = await runInDurableObject(fresh, (_o, state) => {
      expect(schemaVersion(state.storage.sql)).toBe(TASK_BASELINE.version);
      return shape(state.storage.sql);
    });
    const migrated = env.TASKS.getByName(`baseline-migrated-${Date.now()}`);
    const viaMigrations = await runInDurableObject(migrated, async (_o, state) => {
      await rebuildAt(state.storage, TASK_MIGRATIONS, 0, true);
      expect(await migrate(state.storage, TASK_MIGRATIONS)).toBe(TASK_BASELINE.version);
      return shape(state.storage.sql);
    });
    expect(viaBaseline.map((o) => o.name)).toContain("task");
    expect(viaBaseline).toEqual(viaMigrations);
    expect(TASK_BASELINE.version).toBe(TASK_MIGRATIONS[TASK_MIGRATIONS.length - 1]?.version);
  });

  it("an unversioned directory keeps its pointers", async () => {
    const stub = env.DIRECTORY.getByName(`migration-directory-${Date.now()}`);
    await runInDurableObject(stub, async (_o, state) => {
      await rebuildAt(state.storage, DIRECTORY_MIGRATIONS, 1, true);
      state.storage.sql.exec("INSERT INTO pointers (name, value, created_at) VALUES ('api-key:key_1', 'ten_x', 't')");
      expect(await migrate(state.storage, DIRECTORY_MIGRATIONS)).toBe(1);
      expect(count(state.storage.sql, "pointers")).toBe(1);
    });
  });

  it("a task record of version 1 reads as the current version with its defaults", () => {
    const rec = upgradeRecord({ task_id: "task_a", route: { provider: "fal" } }) as any;
    expect(rec).toMatchObject({
      record_version: 7,
      routes: [{ provider: "fal" }],
      mode: "live",
      route_index: 0,
      route_failures: [],
      malformed_polls: 0,
      change_seq: 0,
      safety: null,
      activity: null,
      stall: null,
      stall_moves: 0,
      retention: null,
      delivery: null,
    });
    expect(() => upgradeRecord({ record_version: 99 })).toThrow(/newer/);
  });
});
