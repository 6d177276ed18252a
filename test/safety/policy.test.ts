/**
 * A tenant's content review policy: the operator API (read, replace, validation, audit), review
 * turned off for a tenant, and the rule that decides which categories refuse (stricter only).
 */
import { describe, expect, it } from "vitest";
import { refusedCategories } from "../../src/safety/policy";
import { admin, call, expectError, newTenant } from "../helpers/api";
import { auditOf, safetyOf } from "../helpers/safety";
import { createImage } from "../helpers/tasks";

const policyOf = (tenantId: string) => admin(`/admin/v1/tenants/${tenantId}/safety`);
const setPolicy = (tenantId: string, body: unknown) => admin(`/admin/v1/tenants/${tenantId}/safety`, body, "PUT");

describe("the operator API", () => {
  it("reads the default policy (review on, nothing stricter)", async () => {
    const t = await newTenant();
    const res = await policyOf(t.tenant_id);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ tenant_id: t.tenant_id, enabled: true, block_categories: [], thresholds: {} });
  });

  it("replaces the policy, normalised, and audits the change", async () => {
    const t = await newTenant();
    const body = { enabled: true, block_categories: ["violence", "hate", "violence"], thresholds: { "sexual/minors": 0.05 } };
    const res = await setPolicy(t.tenant_id, body);
    expect(res.status, res.text).toBe(200);
    const expected = {
      tenant_id: t.tenant_id,
      enabled: true,
      block_categories: ["hate", "violence"],
      thresholds: { "sexual/minors": 0.05 },
    };
    expect(res.json).toEqual(expected);
    expect((await policyOf(t.tenant_id)).json).toEqual(expected);
    const [entry] = await auditOf(t.tenant_id, "safety.policy_set");
    expect(entry.actor.type).toBe("operator");
    expect(entry.details).toEqual({
      enabled: true,
      block_categories: ["hate", "violence"],
      thresholds: { "sexual/minors": 0.05 },
    });
  });

  it("refuses what is not a policy with 422 and the field's pointer", async () => {
    const t = await newTenant();
    expectError(
      await setPolicy(t.tenant_id, { enabled: true, block_categories: ["rudeness"] }),
      422,
      "invalid_request",
      "/block_categories/0",
    );
    expectError(
      await setPolicy(t.tenant_id, { enabled: true, thresholds: { violence: 1.5 } }),
      422,
      "invalid_request",
      "/thresholds/violence",
    );
    expectError(
      await setPolicy(t.tenant_id, { enabled: true, thresholds: { violence: 0 } }),
      422,
      "invalid_request",
      "/thresholds/violence",
    );
    expectError(
      await setPolicy(t.tenant_id, { enabled: true, thresholds: { rudeness: 0.5 } }),
      422,
      "invalid_request",
      "/thresholds/rudeness",
    );
    expectError(await setPolicy(t.tenant_id, { block_categories: [] }), 422, "invalid_request", "/enabled");
    expectError(await setPolicy(t.tenant_id, { enabled: true, extra: 1 }), 422, "invalid_request");
    expect((await policyOf(t.tenant_id)).json.block_categories).toEqual([]);
  });

  it("answers 404 for a tenant that does not exist, and 401 to anything but the operator token", async () => {
    expectError(await policyOf("ten_0000000000000000000000000a"), 404, "not_found");
    expectError(await setPolicy("ten_0000000000000000000000000a", { enabled: false }), 404, "not_found");
    expectError(await setPolicy("not-a-tenant", { enabled: false }), 404, "not_found");
    const t = await newTenant();
    expect((await call(`/admin/v1/tenants/${t.tenant_id}/safety`, { key: t.api_key })).status).toBe(401);
  });
});

describe("review turned off for a tenant", () => {
  it("admits what review would refuse, records the decision, and takes effect at once", async () => {
    const t = await newTenant();
    // The key is used (and cached) before the change: the change must still apply at once here.
    expectError(await createImage(t, { prompt: "a sandbox-unsafe-test scene" }), 400, "safety_rejected");
    expect((await setPolicy(t.tenant_id, { enabled: false })).status).toBe(200);
    const res = await createImage(t, { prompt: "a sandbox-unsafe-test scene" });
    expect(res.status, res.text).toBe(202);
    expect(await safetyOf(res.json.task_id)).toMatchObject({ provider: "builtin", outcome: "off", unreviewed: ["/prompt"] });
    // And on again.
    await setPolicy(t.tenant_id, { enabled: true });
    expectError(await createImage(t, { prompt: "a sandbox-unsafe-test scene" }), 400, "safety_rejected");
  });

  it("does not change the answer of a key that was already refused (same request, same outcome)", async () => {
    const t = await newTenant();
    const key = `kept-${Date.now()}`;
    expectError(await createImage(t, { prompt: "a sandbox-unsafe-test scene" }, key), 400, "safety_rejected");
    await setPolicy(t.tenant_id, { enabled: false });
    expectError(await createImage(t, { prompt: "a sandbox-unsafe-test scene" }, key), 400, "safety_rejected");
  });
});

describe("which categories refuse", () => {
  const verdict = (scores: Record<string, number>, flagged: string[] = []) => ({ param: "/prompt", scores, flagged });
  const base = { enabled: true, block_categories: [], thresholds: {} };

  it("refuses what the provider flags, whatever the policy says", () => {
    expect(refusedCategories(verdict({ violence: 0.9 }, ["violence"]), base)).toEqual(["violence"]);
    expect(refusedCategories(verdict({ violence: 0.9 }, ["violence"]), { ...base, thresholds: { violence: 1 } })).toEqual([
      "violence",
    ]);
  });

  it("adds a category whose score reaches the tenant's threshold", () => {
    expect(refusedCategories(verdict({ violence: 0.4 }), base)).toEqual([]);
    expect(refusedCategories(verdict({ violence: 0.4 }), { ...base, thresholds: { violence: 0.4 } })).toEqual(["violence"]);
    expect(refusedCategories(verdict({ violence: 0.39 }), { ...base, thresholds: { violence: 0.4 } })).toEqual([]);
  });

  it("refuses a blocked category from 0.3, or from its own threshold", () => {
    const blocked = { ...base, block_categories: ["hate"] };
    expect(refusedCategories(verdict({ hate: 0.3 }), blocked)).toEqual(["hate"]);
    expect(refusedCategories(verdict({ hate: 0.29 }), blocked)).toEqual([]);
    expect(refusedCategories(verdict({ hate: 0.1 }), { ...blocked, thresholds: { hate: 0.1 } })).toEqual(["hate"]);
  });
});
