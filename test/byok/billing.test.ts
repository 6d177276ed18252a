/**
 * A task served on the tenant's own key is charged the platform fee (BYOK_FEE_PERCENT of the card
 * price, 5 in this project) instead of the card price: its own usage line `byok_fee`, the meters
 * shown with nothing billed, the ledger and the key's spend at the fee.
 */
import { describe, expect, it } from "vitest";
import { dec, fmt } from "../../src/lib/decimal";
import { admin, call, newTenant } from "../helpers/api";
import { expectLedgerBalanced } from "../helpers/tasks";
import { follow, newTag } from "../providers/harness";
import { addKey, createImageTask } from "./helpers";

describe("the fee on a tenant's own key", () => {
  it("charges 5% of the card price as byok_fee, counted by the ledger and the key's limit", async () => {
    // The card price of flux-2-pro on fal, from a tenant on the platform's key (bfl down, so fal serves).
    const plain = await newTenant();
    const reference = await createImageTask(plain, "flux-2-pro", newTag("byok-fee-ref"), ["#fake:down@bfl"]);
    const ref = (await follow(plain, reference.task_id)).task;
    expect(ref.provider).toMatchObject({ name: "fal", key: "platform" });
    const cardPrice = ref.usage.credits;
    expect(dec(cardPrice).gt(0)).toBe(true);

    const t = await newTenant({ credits: "1000", permissions: ["tasks:read", "tasks:write", "providers:manage"] });
    await addKey(t, "fal", { mode: "prefer" });
    const limited = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { limits: { credits: "100", period: "total" } });
    expect(limited.status).toBe(201);
    const k = { ...t, api_key: limited.json.api_key, key_id: limited.json.key_id };
    const created = await createImageTask(k, "flux-2-pro", newTag("byok-fee"));
    const { task } = await follow(k, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider).toMatchObject({ name: "fal", key: "tenant" });

    const fee = fmt(dec(cardPrice).times("0.05"));
    const meters = ref.usage.lines.map((l: any) => ({ ...l, billed_amount_credits: "0" }));
    expect(task.usage.lines).toEqual([
      ...meters,
      { meter: "byok_fee", unit: "credits", quantity: cardPrice, billed_amount_credits: fee },
    ]);
    expect(task.usage.credits).toBe(fee);
    expect(task.billing.net_charged_credits).toBe(fee);
    // Held at admission: the dearest route's price (the platform's routes may still serve); the rest given back.
    expect(dec(task.billing.charged_credits).gte(cardPrice)).toBe(true);
    expect(task.billing.refunded_credits).toBe(fmt(dec(task.billing.charged_credits).minus(fee)));

    const l = await expectLedgerBalanced(t.tenant_id);
    expect(l.totals.captured).toBe(fee);
    const own = (await call("/v1/key", { key: k.api_key })).json;
    expect(own.spent_credits).toBe(fee);
    expect(own.remaining_credits).toBe(fmt(dec("100").minus(fee)));

    // With only its own key to run on, a task holds no more than the fee.
    await addKey(t, "fal", { mode: "only", failover: false });
    const closed = await createImageTask(k, "flux-2-pro", newTag("byok-fee-only"));
    expect(closed.billing.charged_credits).toBe(fee);
    const done = (await follow(k, closed.task_id)).task;
    expect(done.billing).toMatchObject({ charged_credits: fee, net_charged_credits: fee, refunded_credits: "0" });
    expect((await call("/v1/key", { key: k.api_key })).json.spent_credits).toBe(fmt(dec(fee).times(2)));
    await expectLedgerBalanced(t.tenant_id);
  });
});
