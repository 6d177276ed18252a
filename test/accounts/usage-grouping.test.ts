/**
 * The usage report grouped by two keys (the console's table per day and model): one row per pair
 * with activity, sorted by the first key then the second, summing to the same totals as one key.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { recordUsage, type UsageNote, usageTotals } from "../../src/accounts/usage";
import { dec } from "../../src/lib/decimal";

const note = (model: string, extra: Partial<UsageNote> = {}): UsageNote => ({
  mode: "live",
  kind: "task",
  capability: "text_to_image",
  model,
  outcome: "succeeded",
  counted: true,
  counters: { image_count: 1 },
  ...extra,
});

const january = { mode: "live" as const, from: "2026-01-01T00:00:00.000Z", to: "2026-02-01T00:00:00.000Z" };

describe("usage grouped by day, then model", () => {
  it("gives one row per day and model, sorted, with the totals of a one-key report", async () => {
    const stub = env.ACCOUNTS.getByName(`usage-grouping-${Date.now()}`);
    await runInDurableObject(stub, async (obj: AccountObject, state) => {
      const sql = state.storage.sql;
      recordUsage(sql, "e1", "2026-01-02T10:00:00.000Z", dec("1.5"), note("m2"));
      recordUsage(sql, "e2", "2026-01-02T11:00:00.000Z", dec("2.25"), note("m1"));
      recordUsage(sql, "e3", "2026-01-02T12:00:00.000Z", dec("0.000000001"), note("m1"));
      recordUsage(sql, "e4", "2026-01-03T09:00:00.000Z", dec("0"), note("m1", { outcome: "failed", counters: {} }));
      recordUsage(sql, "e5", "2026-01-03T09:30:00.000Z", dec("0.5"), note("chat-x", { kind: "completion" }));
      // Another mode and a day outside the window are not in the report.
      recordUsage(sql, "e6", "2026-01-02T10:00:00.000Z", dec("9"), note("m1", { mode: "test" }));
      recordUsage(sql, "e7", "2026-02-01T00:00:00.000Z", dec("9"), note("m1"));

      const rows = obj.usage({ ...january, group_by: "day", then_by: "model" });
      expect(rows.map((r) => [r.key, r.subkey, r.credits, r.tasks, r.completions, r.failed, r.image_count])).toEqual([
        ["2026-01-02", "m1", "2.250000001", 2, 0, 0, 2],
        ["2026-01-02", "m2", "1.5", 1, 0, 0, 1],
        ["2026-01-03", "chat-x", "0.5", 0, 1, 0, 1],
        ["2026-01-03", "m1", "0", 1, 0, 1, 0],
      ]);
      expect(usageTotals(rows)).toEqual(usageTotals(obj.usage({ ...january, group_by: "day" })));
      // One key as before: no subkey; the same key twice is one key.
      expect(obj.usage({ ...january, group_by: "model" })[0]).not.toHaveProperty("subkey");
      expect(obj.usage({ ...january, group_by: "day", then_by: "day" }).map((r) => r.key)).toEqual(["2026-01-02", "2026-01-03"]);
    });
  });
});
