/**
 * GET /v1/balance: what a new request can hold now and what open holds keep, for any valid key;
 * a test-mode key sees the fixed test balance and never the live one.
 */
import { describe, expect, it } from "vitest";
import { dec, fmt } from "../../src/lib/decimal";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, expectLedgerBalanced, waitFor } from "../helpers/tasks";

const balance = (key: string) => call("/v1/balance", { key });
const minus = (a: string, b: string) => fmt(dec(a).minus(b));

/** A second key of the same tenant. */
async function anotherKey(t: TestTenant, body: Record<string, unknown>): Promise<string> {
  const k = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, body);
  expect(k.status).toBe(201);
  return k.json.api_key;
}

describe("GET /v1/balance", () => {
  it("answers the live balance as decimal strings", async () => {
    const t = await newTenant({ credits: "250.125" });
    const res = await balance(t.api_key);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      object: "balance",
      mode: "live",
      available_credits: "250.125",
      reserved_credits: "0",
      currency: "credits",
      as_of: expect.any(String),
    });
    expect(new Date(res.json.as_of).toISOString()).toBe(res.json.as_of);
  });

  it("shows a queued task's hold as reserved, then gives it back when the task is canceled", async () => {
    const t = await newTenant({ credits: "1000" });
    const created = await createImage(t, { prompt: "wait in line", metadata: { sandbox_fault: "stay_queued" } });
    expect(created.status).toBe(202);
    const held = created.json.billing.charged_credits as string;
    expect(dec(held).gt(0)).toBe(true);
    const during = (await balance(t.api_key)).json;
    expect(during.reserved_credits).toBe(held);
    expect(during.available_credits).toBe(minus("1000", held));

    const canceled = await call(`/v1/tasks/${created.json.task_id}/cancel`, { key: t.api_key, method: "POST", body: {} });
    expect(canceled.json.status).toBe("canceled");
    const after = (await balance(t.api_key)).json;
    expect(after).toMatchObject({ available_credits: "1000", reserved_credits: "0" });
    await expectLedgerBalanced(t.tenant_id);
  });

  it("after a task succeeds: nothing reserved, and the balance is down by what was captured", async () => {
    const t = await newTenant({ credits: "1000" });
    const done = await waitFor(t, (await createImage(t, { prompt: "a lighthouse" })).json.task_id);
    expect(done.status).toBe("succeeded");
    const net = done.billing.net_charged_credits as string;
    expect(dec(net).gt(0)).toBe(true);
    const res = (await balance(t.api_key)).json;
    expect(res).toMatchObject({ available_credits: minus("1000", net), reserved_credits: "0" });
    const l = await expectLedgerBalanced(t.tenant_id);
    expect(res.available_credits).toBe(l.balance);
  });

  it("any valid key reads it, even one holding no permission at all", async () => {
    const t = await newTenant({ credits: "42" });
    const k = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { permissions: ["catalog:read"] });
    const bare = await admin(`/admin/v1/api-keys/${k.json.key_id}/permissions`, { permissions: [] });
    expect(bare.json.permissions).toEqual([]);
    const res = await balance(k.json.api_key);
    expect(res.status).toBe(200);
    expect(res.json.available_credits).toBe("42");
    // The same key cannot read anything that needs a permission.
    expectError(await call("/v1/usage", { key: k.json.api_key }), 403, "forbidden");
  });

  it("refuses a missing or unknown key", async () => {
    expectError(await call("/v1/balance"), 401, "unauthorized");
    expectError(await balance(`sk_us_live_${"A".repeat(43)}`), 401, "invalid_api_key");
  });

  it("a test-mode key sees the fixed test balance; its work neither shows nor changes the live one", async () => {
    const t = await newTenant({ credits: "300" });
    const testKey = await anotherKey(t, { mode: "test" });
    const res = await balance(testKey);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: "balance",
      mode: "test",
      available_credits: "1000000",
      reserved_credits: "0",
      currency: "credits",
    });
    // A test task held for (at zero), run and settled: the live balance is as it was.
    const tester = { ...t, api_key: testKey };
    const queued = await createImage(tester, { prompt: "free", metadata: { sandbox_fault: "stay_queued" } });
    expect(queued.json.billing.charged_credits).toBe("0");
    expect((await balance(t.api_key)).json).toMatchObject({ available_credits: "300", reserved_credits: "0" });
    expect((await balance(testKey)).json).toMatchObject({ available_credits: "1000000", reserved_credits: "0" });
    const done = await waitFor(tester, (await createImage(tester, { prompt: "free too" })).json.task_id);
    expect(done.status).toBe("succeeded");
    expect((await balance(t.api_key)).json).toMatchObject({ available_credits: "300", reserved_credits: "0" });
    expect((await balance(testKey)).json.available_credits).toBe("1000000");
    await expectLedgerBalanced(t.tenant_id);
  });
});
