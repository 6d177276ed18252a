/**
 * Schema version 20 gives every existing key its lineage (through rotations) and ancestors
 * (through `created_by = 'api_key:<id>'`), and rebuilds the family figures from the ledger's rows:
 * the holds made before the migration count against the limits of the families they belong to.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountMigrations } from "../../src/accounts/account-schema";
import { bumpKeySpend } from "../../src/accounts/key-spend";
import { dec } from "../../src/lib/decimal";
import { migrate, schemaVersion } from "../../src/storage/migrations";
import { rebuildAt } from "../helpers/storage";

const DAY = new Date().toISOString();

/** At version 19: a top key rotated into a second, a child made by the first, a grandchild made by the child; holds of each. */
function seed(sql: SqlStorage) {
  sql.exec("INSERT INTO tenant (tenant_id, name, status, created_at, updated_at) VALUES ('ten_x', 'old', 'active', 't', 't')");
  sql.exec("INSERT INTO credit_grants (grant_id, amount, source, created_at) VALUES ('grant_1', '1000', 'opening_balance', 't')");
  const key = (id: string, createdAt: string, createdBy: string, limits: string | null, replacedBy: string | null = null) =>
    sql.exec(
      "INSERT INTO api_keys (key_id, key_hash, region, permissions, status, created_at, created_by, limits, replaced_by) VALUES (?, ?, 'us', '[]', 'active', ?, ?, ?, ?)",
      id,
      `h-${id}`,
      createdAt,
      createdBy,
      limits,
      replacedBy,
    );
  const limit = JSON.stringify({ credits: "10", period: "day" });
  key("key_top", "2026-01-01T00:00:00.000Z", "operator", limit, "key_top2");
  key("key_child", "2026-01-02T00:00:00.000Z", "api_key:key_top", limit);
  key("key_grand", "2026-01-03T00:00:00.000Z", "api_key:key_child", limit);
  key("key_top2", "2026-01-04T00:00:00.000Z", "owner@example.com", limit);
  key("key_other", "2026-01-05T00:00:00.000Z", "operator", null);
  const hold = (id: string, keyId: string, amount: string, status: string, captured: string) => {
    sql.exec(
      "INSERT INTO reservations (task_id, amount, status, captured_amount, created_at, key_id) VALUES (?, ?, ?, ?, ?, ?)",
      id,
      amount,
      status,
      captured,
      DAY,
      keyId,
    );
    bumpKeySpend(sql, keyId, DAY, status === "open" ? dec(amount) : dec(0), status === "captured" ? dec(captured) : dec(0));
  };
  hold("task_a:1", "key_top", "2", "captured", "1.5");
  hold("task_b:1", "key_child", "3", "open", "0");
  hold("task_c:1", "key_grand", "4", "captured", "4");
  hold("task_d:1", "key_grand", "9", "released", "0");
  hold("task_e:1", "key_other", "5", "open", "0");
  sql.exec("UPDATE totals SET granted = '1000', captured = '5.5', reserved = '8'");
}

describe("AccountObject migration to version 20 (key families)", () => {
  it("fills lineage and ancestors, rebuilds the family figures, and the next hold is checked against them", async () => {
    const stub = env.ACCOUNTS.getByName(`family-migration-${Date.now()}`);
    await runInDurableObject(stub, async (obj: AccountObject, state) => {
      const migrations = accountMigrations(env);
      await rebuildAt(state.storage, migrations, 19);
      const sql = state.storage.sql;
      seed(sql);
      expect(schemaVersion(sql)).toBe(19);
      expect(await migrate(state.storage, migrations, 20)).toBe(20);
      await migrate(state.storage, migrations);

      const rows = Object.fromEntries(
        sql
          .exec<{ key_id: string; lineage: string; ancestors: string }>("SELECT key_id, lineage, ancestors FROM api_keys")
          .toArray()
          .map((r) => [r.key_id, { lineage: r.lineage, ancestors: JSON.parse(r.ancestors) }]),
      );
      expect(rows).toEqual({
        key_top: { lineage: "key_top", ancestors: [] },
        key_top2: { lineage: "key_top", ancestors: [] },
        key_child: { lineage: "key_child", ancestors: ["key_top"] },
        key_grand: { lineage: "key_grand", ancestors: ["key_child", "key_top"] },
        key_other: { lineage: "key_other", ancestors: [] },
      });
      const ledger = obj.ledger();
      expect(ledger.key_spend_mismatches).toEqual([]);

      // The rotated top key's family holds 3 and captured 1.5 + 4: 1.5 left of its 10 today.
      expect(obj.keyStanding("key_top2")).toMatchObject({ spend: { spent: "5.5", reserved: "3" }, remaining: "1.5" });
      expect(obj.keyStanding("key_grand")).toMatchObject({ spend: { spent: "4", reserved: "0" }, remaining: "1.5" });
      const refused = obj.reserve("chat_new", "2", { key_id: "key_grand" });
      expect(refused).toMatchObject({ ok: false, code: "key_spend_limit", remaining: "1.5", limited_by: "key_top2" });
      expect(obj.reserve("chat_new", "1.5", { key_id: "key_grand" })).toMatchObject({ ok: true });
      expect(obj.keyStanding("key_top")).toMatchObject({ remaining: "0" });
      expect(obj.ledger().key_spend_mismatches).toEqual([]);
    });
  });
});
