/**
 * Chat holds off the client's path: the first call of a tenant in an isolate waits for its hold;
 * once the balance is known to cover the call twice over, the hold is made alongside the
 * upstream call, and every call is settled after the client's last byte. Whatever the timing,
 * the ledger stays exact and never goes negative.
 */
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
