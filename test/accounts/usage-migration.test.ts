/**
 * Schema version 6 adds usage_entries to an existing account and rebuilds, from its ledger and its
 * task list, the rows of what was settled before: the report's credits then agree with the ledger.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountMigrations } from "../../src/accounts/account-schema";
import { migrate, schemaVersion } from "../../src/storage/migrations";
import { rebuildAt } from "../helpers/storage";

/** An account at version 5 with a settled task, a failed one, a queued one and a chat call with an excess charge. */
function seed(sql: SqlStorage) {
  sql.exec("INSERT INTO tenant (tenant_id, name, status, created_at, updated_at) VALUES ('ten_x', 'old', 'active', 't', 't')");
  sql.exec("INSERT INTO credit_grants (grant_id, amount, source, created_at) VALUES ('grant_1', '100', 'opening_balance', 't')");
  sql.exec("UPDATE totals SET granted = '100', captured = '8.25', reserved = '2'");
  const reservation = (id: string, amount: string, status: string, captured: string, settled: string | null) =>
    sql.exec(
      "INSERT INTO reservations (task_id, amount, status, captured_amount, created_at, settled_at) VALUES (?, ?, ?, ?, '2026-01-01T00:00:00.000Z', ?)",
      id,
      amount,
      status,
      captured,
      settled,
    );
  reservation("task_a:0123456789abcdef:1", "9", "captured", "7.5", "2026-01-02T10:00:00.000Z");
  reservation("task_b:0123456789abcdef:1", "4", "released", "0", "2026-01-02T11:00:00.000Z");
  reservation("task_b:0123456789abcdef:2", "4", "released", "0", "2026-01-03T11:00:00.000Z");
  reservation("task_c:0123456789abcdef:1", "2", "open", "0", null);
  reservation("chat_req1_abcd", "0.25", "captured", "0.25", "2026-01-03T12:00:00.000Z");
  reservation("chat_req1_abcd_excess", "0.5", "captured", "0.5", "2026-01-03T12:00:01.000Z");
  const task = (id: string, status: string, model: string, updated: string) =>
    sql.exec(
      "INSERT INTO tasks (task_id, created_at, status, capability, model, updated_at) VALUES (?, '2026-01-01T00:00:00.000Z', ?, 'text_to_image', ?, ?)",
      id,
      status,
      model,
      updated,
    );
  task("task_a", "succeeded", "m1", "2026-01-02T10:00:01.000Z");
  task("task_b", "failed", "m2", "2026-01-03T11:00:01.000Z");
  task("task_c", "queued", "m1", "2026-01-01T00:00:00.000Z");
}

const january = { mode: "live" as const, from: "2026-01-01T00:00:00.000Z", to: "2026-02-01T00:00:00.000Z" };

describe("AccountObject migration to version 6 (usage_entries)", () => {
  it("rebuilds the rows of earlier settlements, and records new ones", async () => {
    const stub = env.ACCOUNTS.getByName(`usage-migration-${Date.now()}`);
    await runInDurableObject(stub, async (obj: AccountObject, state) => {
      await rebuildAt(state.storage, accountMigrations(env), 5);
      const sql = state.storage.sql;
      seed(sql);
      expect(schemaVersion(sql)).toBe(5);
      // To version 6 itself, then on to the current schema (later versions leave usage_entries be).
      expect(await migrate(state.storage, accountMigrations(env), 6)).toBe(6);
      const latest = await migrate(state.storage, accountMigrations(env));

      // Finished tasks and chat charges have a row each; the queued task has none yet.
      const ids = sql
        .exec<{ entry_id: string }>("SELECT entry_id FROM usage_entries ORDER BY entry_id")
        .toArray()
        .map((r) => r.entry_id);
      expect(ids).toEqual(["chat_req1_abcd", "chat_req1_abcd_excess", "task_a", "task_b"]);

      const byCapability = obj.usage({ ...january, group_by: "capability" });
      expect(byCapability).toEqual([
        expect.objectContaining({ key: "chat_completion", credits: "0.75", completions: 1, succeeded: 1, input_tokens: 0 }),
        expect.objectContaining({ key: "text_to_image", credits: "7.5", tasks: 2, succeeded: 1, failed: 1 }),
      ]);
      expect(obj.usage({ ...january, group_by: "model" }).map((r) => [r.key, r.credits])).toEqual([
        ["m1", "7.5"],
        ["m2", "0"],
        ["unknown", "0.75"],
      ]);
      expect(obj.usage({ ...january, group_by: "day" }).map((r) => [r.key, r.tasks, r.completions])).toEqual([
        ["2026-01-02", 1, 0],
        ["2026-01-03", 1, 1],
      ]);
      // Rebuilt rows are live: a test-mode report has nothing from before.
      expect(obj.usage({ ...january, mode: "test", group_by: "day" })).toEqual([]);

      // The queued task settles after the migration: its row is written with its capture.
      obj.capture("task_c:0123456789abcdef:1", "1.5", {
        mode: "live",
        kind: "task",
        capability: "text_to_image",
        model: "m1",
        outcome: "succeeded",
        counted: true,
        counters: { image_count: 1 },
      });
      const now = { mode: "live" as const, from: "2026-01-01T00:00:00.000Z", to: new Date(Date.now() + 1000).toISOString() };
      const total = obj.usage({ ...now, group_by: "capability" });
      expect(total.find((r) => r.key === "text_to_image")).toMatchObject({ credits: "9", tasks: 3, image_count: 1 });
      const ledger = obj.ledger();
      expect(ledger.recomputed).toEqual(ledger.totals);
      expect(ledger.totals.captured).toBe("9.75");

      // Running the migrations again changes nothing.
      expect(await migrate(state.storage, accountMigrations(env))).toBe(latest);
      expect(sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM usage_entries").one().n).toBe(5);
    });
  });
});
