/**
 * What a newcomer sends and meets: credit amounts as JSON numbers (max_credits on a create, a
 * chat call and a batch; a key's credit limit; an operator's grant) work as the decimal strings
 * do, and answers keep strings; a 403 for a missing permission says which and how to get a key with it.
 */
import { describe, expect, it } from "vitest";
import { admin, call, expectError, newTenant } from "../helpers/api";
import { createImage } from "../helpers/tasks";

describe("credit amounts as numbers", () => {
  it("max_credits takes a number as it takes a string; too many decimals, negatives and words are refused at it", async () => {
    const t = await newTenant({ credits: "1000" });
    const asNumber = await createImage(t, { prompt: "a fox", max_credits: 50 });
    expect(asNumber.status, asNumber.text).toBe(202);
    const asString = await createImage(t, { prompt: "a fox", max_credits: "50" });
    expect(asString.status).toBe(202);
    expect(asNumber.json.billing.charged_credits).toBe(asString.json.billing.charged_credits);
    // Below the estimate, as a number: the same refusal a string gets.
    const low = { prompt: "a fox", model: "flux-2-pro", max_credits: 0.000001 };
    expectError(await createImage(t, low), 422, "invalid_request", "/max_credits");
    for (const bad of [0.1234567891, -1, "ten", Number.MAX_VALUE]) {
      const e = expectError(await createImage(t, { prompt: "a fox", max_credits: bad }), 422, "invalid_request", "/max_credits");
      expect(e.message).toContain("at most 9 decimals");
    }
  });

  it("a key's credit limit and an operator's grant take numbers; answers show strings", async () => {
    const t = await newTenant({ credits: "1000", permissions: ["catalog:read", "keys:manage"] });
    const made = await call("/v1/keys", {
      key: t.api_key,
      method: "POST",
      body: { name: "capped", permissions: ["catalog:read"], limits: { credits: 12.5, period: "day" } },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.json.limits.credits).toBe("12.5");
    const granted = await admin(`/admin/v1/tenants/${t.tenant_id}/credits`, { amount: 0.5, source: "purchase" });
    expect([200, 201]).toContain(granted.status);
    const balance = await call("/v1/balance", { key: t.api_key });
    expect(typeof balance.json.available_credits).toBe("string");
  });

  it("a chat call's max_credits takes a number", async () => {
    const t = await newTenant({ credits: "1000", permissions: ["chat"] });
    const res = await call("/v1/chat/completions", {
      key: t.api_key,
      body: { model: "auto", messages: [{ role: "user", content: "hi" }], max_credits: 500 },
    });
    expect(res.status, res.text).toBe(200);
  });
});

describe("a missing permission", () => {
  it("names the permission and how to get a key that holds it", async () => {
    const t = await newTenant({ permissions: ["catalog:read"] });
    const e = expectError(await call("/v1/webhook-endpoints", { key: t.api_key }), 403, "forbidden");
    expect(e.details).toMatchObject({ permission: "webhooks:manage", required_permission: "webhooks:manage" });
    expect(e.details.hint).toContain("POST /v1/keys");
    expect(e.message).toContain("webhooks:manage");
    expect(e.message).toContain("console");
  });
});
