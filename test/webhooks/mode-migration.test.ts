/**
 * Schema version 19 gives webhook endpoints and the delivery log a key mode: an account at
 * version 18 keeps its endpoints as live ones and every delivery to them as live, and a test
 * task's callback deliveries become test-mode rows.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { accountMigrations } from "../../src/accounts/account-schema";
import { migrate, schemaVersion } from "../../src/storage/migrations";
import { rebuildAt } from "../helpers/storage";

function seed(sql: SqlStorage) {
  sql.exec(
    `INSERT INTO webhook_endpoints (endpoint_id, url, description, events, enabled, secret_sealed, created_at, updated_at)
     VALUES ('we_old', 'https://example.com/hook', NULL, '["*"]', 1, 'sealed', 't', 't')`,
  );
  const task = (id: string, mode: string) =>
    sql.exec(
      "INSERT INTO tasks (task_id, created_at, status, capability, model, mode, updated_at) VALUES (?, 't', 'succeeded', 'text_to_image', 'm', ?, 't')",
      id,
      mode,
    );
  task("task_live", "live");
  task("task_test", "test");
  const logged = (id: string, taskId: string, target: string, endpointId: string | null) =>
    sql.exec(
      `INSERT INTO webhook_delivery_log (delivery_id, task_id, target, endpoint_id, event_id, event_type, status, created_at)
       VALUES (?, ?, ?, ?, 'evt_1', 'task.succeeded', 'succeeded', ?)`,
      id,
      taskId,
      target,
      endpointId,
      `2026-01-01T00:00:0${id.slice(-1)}.000Z`,
    );
  logged("whd_1", "task_live", "endpoint", "we_old");
  logged("whd_2", "task_live", "callback", null);
  logged("whd_3", "task_test", "callback", null);
  // Before modes, a test task's event went to the (live) endpoint too: that row is the endpoint's, live.
  logged("whd_4", "task_test", "endpoint", "we_old");
}

describe("AccountObject migration to version 19 (webhook modes)", () => {
  it("keeps endpoints and their deliveries live, and marks a test task's callbacks test", async () => {
    const stub = env.ACCOUNTS.getByName(`webhook-mode-migration-${Date.now()}`);
    await runInDurableObject(stub, async (_obj, state) => {
      const migrations = accountMigrations(env);
      await rebuildAt(state.storage, migrations, 18);
      const sql = state.storage.sql;
      seed(sql);
      expect(schemaVersion(sql)).toBe(18);
      expect(await migrate(state.storage, migrations, 19)).toBe(19);
      expect(sql.exec("SELECT endpoint_id, mode FROM webhook_endpoints").toArray()).toEqual([
        { endpoint_id: "we_old", mode: "live" },
      ]);
      expect(sql.exec("SELECT delivery_id, mode FROM webhook_delivery_log ORDER BY delivery_id").toArray()).toEqual([
        { delivery_id: "whd_1", mode: "live" },
        { delivery_id: "whd_2", mode: "live" },
        { delivery_id: "whd_3", mode: "test" },
        { delivery_id: "whd_4", mode: "live" },
      ]);
      await migrate(state.storage, migrations);
    });
  });
});
