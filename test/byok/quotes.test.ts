/**
 * A quote prices the route the create would take: with the tenant's own key as the only route
 * (`only`, no failover) that is the platform fee on the card price, in a `byok_fee` line, and a
 * create that uses the quote holds exactly that; while the platform's routes may still serve
 * (`prefer`), the dearest of them, as the create reserves.
 */
import { describe, expect, it } from "vitest";
import { dec, fmt } from "../../src/lib/decimal";
import { call, type TestTenant } from "../helpers/api";
import { expectLedgerBalanced, newKey } from "../helpers/tasks";
import { follow } from "../providers/harness";
import { addKey, manager } from "./helpers";

const REQUEST = { model: "flux-2-pro", prompt: "a lighthouse at dawn", canvas: { type: "preset", tier: "1K", aspect: "1:1" } };

async function quote(t: TestTenant) {
  const res = await call("/v1/quotes", { key: t.api_key, body: { operation: "text_to_image", request: REQUEST } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json;
}

describe("quotes on a tenant's own key", () => {
  it("price the fee when only the tenant's key serves, and the create holds just that", async () => {
    const platform = await quote(await manager());
    const cardPrice = platform.credits as string;
    expect(dec(cardPrice).gt(0)).toBe(true);
    expect(platform.lines.some((l: { meter: string }) => l.meter === "byok_fee")).toBe(false);

    const t = await manager();
    await addKey(t, "fal", { mode: "prefer" });
    // The platform's routes may still serve: the create reserves the dearest, and so does the quote.
    expect((await quote(t)).credits).toBe(cardPrice);

    await addKey(t, "fal", { mode: "only", failover: false });
    const own = await quote(t);
    const fee = fmt(dec(cardPrice).times("0.05"));
    expect(own.credits).toBe(fee);
    expect(own.lines).toEqual([
      ...platform.lines.map((l: Record<string, string>) => ({ ...l, credits: "0" })),
      { meter: "byok_fee", quantity: cardPrice, unit: "credits", unit_credits: "0.05", credits: fee },
    ]);

    const created = await call("/v1/images/generations", {
      key: t.api_key,
      body: { ...REQUEST, quote_id: own.quote_id },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(202);
    expect(created.json.billing.charged_credits).toBe(fee);
    const { task } = await follow(t, created.json.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider).toMatchObject({ name: "fal", key: "tenant" });
    expect(task.billing.net_charged_credits).toBe(fee);
    await expectLedgerBalanced(t.tenant_id);
  });
});
