/**
 * Chat credits off the client's path: the first call of a tenant in an isolate waits for its hold;
 * once the balance is known to cover the call twice over, nothing is held and the call is charged
 * once; every call is settled after the client's last byte. Whatever the timing, the ledger stays
 * exact and never goes negative.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, newTenant } from "../helpers/api";
import { expectSettled } from "./helpers";

const ask = (extra: Record<string, unknown> = {}) => ({
  model: "gpt-6-luna",
  messages: [{ role: "user", content: "Say something" }],
  max_tokens: 50,
  ...extra,
});

describe("chat billing", () => {
  it("many concurrent calls draining a small balance: each is answered, refused with 402 or cut short; the ledger is exact and never negative", async () => {
    // 50 tokens at 0.00005 cover 0.0025 credits of output per call, plus the prompt: a few calls' worth.
    const t = await newTenant({ credits: "0.02" });
    // Warm the isolate's view of this tenant with one call.
    expect((await call("/v1/chat/completions", { key: t.api_key, body: ask() })).status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        call("/v1/chat/completions", { key: t.api_key, body: ask(i % 2 ? { stream: true } : {}) }),
      ),
    );
    for (const r of results) {
      if (r.status === 402) expect(r.json.error.code).toBe("insufficient_balance");
      else {
        expect(r.status).toBe(200);
        if (r.headers.get("Content-Type")?.startsWith("text/event-stream")) {
          expect(r.text.trim().endsWith("data: [DONE]")).toBe(true);
          // A hold refused mid-stream ends the stream with the spec's envelope.
          if (r.text.includes('"error"')) expect(r.text).toContain('"insufficient_balance"');
        }
      }
    }
    expect(results.some((r) => r.status === 402 || r.text.includes("insufficient_balance"))).toBe(true);
    const l = await expectSettled(t.tenant_id);
    expect(Number(l.balance)).toBeGreaterThanOrEqual(0);
    expect(l.recomputed).toEqual(l.totals);
    // Every credit charged, held or not, beyond a hold or not, is in the usage report, each call once.
    const usage = (await call("/v1/usage?group_by=model", { key: t.api_key })).json;
    expect(usage.totals.credits).toBe(l.totals.captured);
    expect(usage.data.map((r: { model: string }) => r.model)).toEqual(["gpt-6-luna"]);
    const answered = results.filter((r) => r.status === 200).length + 1;
    expect(usage.totals.completions).toBeGreaterThanOrEqual(1);
    expect(usage.totals.completions).toBeLessThanOrEqual(answered);
  });

  it("a call admitted on a balance known to cover it holds nothing and is charged once, as far as the balance goes", async () => {
    const t = await newTenant({ credits: "10" });
    const account = env.ACCOUNTS.getByName(t.tenant_id);
    const rows = () =>
      runInDurableObject(account, (_o, state) =>
        state.storage.sql
          .exec<{ task_id: string; amount: string; captured_amount: string; status: string }>(
            "SELECT task_id, amount, captured_amount, status FROM reservations ORDER BY created_at, task_id",
          )
          .toArray(),
      );
    // The first call of the tenant in this isolate waits for its hold (the estimate), then captures the cost.
    const first = await call("/v1/chat/completions", { key: t.api_key, body: ask() });
    expect(first.status).toBe(200);
    // Captured just after the answer went out.
    await expect.poll(async () => (await rows())[0]?.status).toBe("captured");
    const [held] = await rows();
    expect(held).toMatchObject({ status: "captured", captured_amount: first.headers.get("X-Credits-Charged") });
    expect(Number(held!.amount)).toBeGreaterThan(Number(held!.captured_amount));
    // The next is covered by the balance as heard: one row, written once, for exactly the cost.
    const second = await call("/v1/chat/completions", { key: t.api_key, body: ask({ stream: true }) });
    expect(second.status).toBe(200);
    await expect.poll(async () => (await rows()).length).toBe(2);
    const charged = (await rows()).find((r) => r.task_id !== held!.task_id)!;
    expect(charged.status).toBe("captured");
    expect(charged.amount).toBe(charged.captured_amount);
    expect(Number(charged.captured_amount)).toBeGreaterThan(0);
    // Charged as far as the balance goes, never below zero; the same id again changes nothing.
    const balance = (await account.get())!.balance;
    const over = await account.charge("chat_req_over_1", "1000");
    expect(over.settlement).toMatchObject({ status: "captured", captured: balance });
    expect(over.balance).toBe("0");
    expect((await account.charge("chat_req_over_1", "1000")).settlement.captured).toBe(balance);
    expect((await account.charge("chat_req_over_2", "5")).settlement.captured).toBe("0");
    const l = await expectSettled(t.tenant_id);
    expect(l.balance).toBe("0");
    expect(l.recomputed).toEqual(l.totals);
  });

  it("a hold whose call never settles (its isolate died) is given back by the account's alarm", async () => {
    const t = await newTenant({ credits: "10" });
    const account = env.ACCOUNTS.getByName(t.tenant_id);
    const held = await account.reserve("chat_req_orphan_1", "2", { lease_ms: 60_000 });
    expect(held.ok).toBe(true);
    expect((await account.get())?.balance).toBe("8");
    const { runInDurableObject, runDurableObjectAlarm } = await import("cloudflare:test");
    await runInDurableObject(account, async (_o, state) => {
      expect(await state.storage.getAlarm()).not.toBeNull();
      state.storage.sql.exec("UPDATE reservations SET lease_until = ? WHERE task_id = 'chat_req_orphan_1'", Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(account)).toBe(true);
    const l = await expectSettled(t.tenant_id);
    expect(l.balance).toBe("10");
  });
});
