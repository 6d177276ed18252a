/**
 * A key's period: its spend starts again at the period's boundary (the clock injected), and its
 * 50 / 80 / 100 % alerts are recorded with the settlement that crosses them, mailed to the
 * tenant's owners and audited, once per threshold per period.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { dec, fmt } from "../../src/lib/decimal";
import { admin, call, expectError, type TestTenant } from "../helpers/api";
import { freshEmail } from "../helpers/console";
import { createImage, waitFor } from "../helpers/tasks";

async function tenantWithLimitedKey(limits: Record<string, unknown>, ownerEmail?: string) {
  const t = await admin("/admin/v1/tenants", {
    name: "limited",
    credits: "100000",
    ...(ownerEmail ? { owner_email: ownerEmail } : {}),
  });
  expect(t.status).toBe(201);
  const k = await admin(`/admin/v1/tenants/${t.json.tenant_id}/api-keys`, { limits });
  expect(k.status).toBe(201);
  return { tenant_id: t.json.tenant_id, api_key: k.json.api_key, key_id: k.json.key_id } as TestTenant;
}

const account = (t: TestTenant) => env.ACCOUNTS.getByName(t.tenant_id);

afterEach(() => {
  vi.useRealTimers();
});

describe("a key's period", () => {
  it("resets at 00:00 UTC: what the day held no longer counts the next day", async () => {
    const t = await tenantWithLimitedKey({ credits: "5", period: "day" });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-03-14T23:59:00Z"));
    // Straight at the ledger, in the account object, with the clock of the test.
    const held = await runInDurableObject(account(t), (o: AccountObject) => o.reserve("chat_a", "4", { key_id: t.key_id }));
    expect(held.ok).toBe(true);
    const over = await runInDurableObject(account(t), (o: AccountObject) => o.reserve("chat_b", "2", { key_id: t.key_id }));
    expect(over).toMatchObject({ ok: false, code: "key_spend_limit", remaining: "1", resets_at: "2026-03-15T00:00:00.000Z" });
    await runInDurableObject(account(t), (o: AccountObject) => o.capture("chat_a", "3.5"));
    vi.setSystemTime(new Date("2026-03-15T00:00:01Z"));
    const next = await runInDurableObject(account(t), (o: AccountObject) => o.reserve("chat_c", "5", { key_id: t.key_id }));
    expect(next.ok).toBe(true);
    const standing = await runInDurableObject(account(t), (o: AccountObject) => o.keyStanding(t.key_id));
    expect(standing).toMatchObject({
      window: { started_at: "2026-03-15T00:00:00.000Z", resets_at: "2026-03-16T00:00:00.000Z" },
      spend: { spent: "0", reserved: "5" },
      remaining: "0",
    });
  });

  it("a monthly limit over the API: refused with resets_at the 1st, admitted again once the month turns", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-04-30T22:00:00Z"));
    const t = await tenantWithLimitedKey({ credits: "0.000000001", period: "month" });
    const refused = await createImage(t, { prompt: "x", metadata: { sandbox_fault: "stay_queued" } });
    expectError(refused, 402, "insufficient_balance");
    expect(refused.json.error.details).toMatchObject({ reason: "key_spend_limit", resets_at: "2026-05-01T00:00:00.000Z" });
    const own = (await call("/v1/key", { key: t.api_key })).json;
    expect(own).toMatchObject({ period_started_at: "2026-04-01T00:00:00.000Z", period_resets_at: "2026-05-01T00:00:00.000Z" });
  });
});

describe("spend alerts", () => {
  it("50, 80 and 100 % each mailed to the owners and audited once per period", async () => {
    const email = freshEmail("alerts");
    const t = await tenantWithLimitedKey({ credits: "10", period: "month" }, email);
    const capture = (id: string, amount: string) =>
      runInDurableObject(account(t), (o: AccountObject) => {
        const r = o.reserve(id, amount, { key_id: t.key_id });
        if (!r.ok) throw new Error(r.code);
        return o.capture(id, amount);
      });
    await capture("chat_1", "4"); // 40 %: nothing
    await capture("chat_2", "1"); // 50 %
    await capture("chat_3", "4"); // 90 %: 80
    await capture("chat_4", "1"); // 100 %
    // A charge held by nothing cannot pass the limit, and records no threshold again.
    const extra = await runInDurableObject(account(t), (o: AccountObject) => o.charge("chat_5", "3", undefined, t.key_id));
    expect(extra.settlement.captured).toBe("0");
    const mails = async () =>
      (await admin(`/admin/v1/outbox?to=${encodeURIComponent(email)}`)).json.data.filter((m: any) =>
        m.subject.includes("of its credit limit"),
      );
    await expect.poll(async () => (await mails()).length).toBe(3);
    const subjects = (await mails()).map((m: any) => m.subject).sort();
    expect(subjects.map((s: string) => /(\d+)%/.exec(s)?.[1])).toEqual(["100", "50", "80"]);
    const audit = (await runInDurableObject(account(t), (o: AccountObject) => o.audit({ limit: 50 }))).entries.filter(
      (e) => e.action === "api_key.spend_alert",
    );
    expect(audit.map((e) => e.details?.threshold).sort()).toEqual([100, 50, 80]);
    // Nothing is mailed twice.
    await new Promise((r) => setTimeout(r, 100));
    expect(await mails()).toHaveLength(3);
  });

  it("tasks crossing thresholds through the API raise their alerts with the capture", async () => {
    const t0 = await tenantWithLimitedKey({});
    const first = await waitFor(t0, (await createImage(t0, { prompt: "a lighthouse" })).json.task_id);
    const cost = first.billing.net_charged_credits as string;
    // Two tasks' worth: the first reaches 50 %, the second 80 and 100.
    const t = await tenantWithLimitedKey({ credits: fmt(dec(cost).times(2)), period: "total" });
    await waitFor(t, (await createImage(t, { prompt: "a lighthouse" })).json.task_id);
    const thresholds = async () =>
      (await runInDurableObject(account(t), (o: AccountObject) => o.audit({ limit: 50 }))).entries
        .filter((e) => e.action === "api_key.spend_alert")
        .map((e) => e.details?.threshold)
        .sort();
    expect(await thresholds()).toEqual([50]);
    await waitFor(t, (await createImage(t, { prompt: "a lighthouse" })).json.task_id);
    expect(await thresholds()).toEqual([100, 50, 80]);
    expectError(await createImage(t, { prompt: "a lighthouse" }), 402, "insufficient_balance");
  });
});
