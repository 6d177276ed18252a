/**
 * A tenant's `output_retention_days`: 30 by default, set by the operator, shown with the tenant;
 * it is both the default of a create and the most a create may ask for.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { auditOf } from "../helpers/safety";
import { createImage, newKey } from "../helpers/tasks";

const settings = (tenantId: string, body: unknown) => admin(`/admin/v1/tenants/${tenantId}/settings`, body);

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
});

describe("the tenant's retention", () => {
  it("is 30 days until the operator sets it, and the tenant read shows what was set", async () => {
    const other = await newTenant();
    expect((await admin(`/admin/v1/tenants/${other.tenant_id}`)).json.output_retention_days).toBe(30);
    const set = await settings(other.tenant_id, { output_retention_days: 7 });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    expect(set.json).toMatchObject({ tenant_id: other.tenant_id, output_retention_days: 7 });
    expect((await admin(`/admin/v1/tenants/${other.tenant_id}`)).json.output_retention_days).toBe(7);
    expect((await settings(other.tenant_id, { output_retention_days: 365 })).json.output_retention_days).toBe(365);
    expect((await settings(other.tenant_id, { output_retention_days: 1 })).json.output_retention_days).toBe(1);
  });

  it("refuses days outside 1–365, a fraction, a string, a missing or an unknown field", async () => {
    for (const days of [0, 366, -1, 1.5, "7", null]) {
      expectError(await settings(t.tenant_id, { output_retention_days: days }), 422, "invalid_request", "/output_retention_days");
    }
    expectError(await settings(t.tenant_id, {}), 422, "invalid_request");
    expectError(await settings(t.tenant_id, { output_retention_days: 7, colour: "red" }), 422, "invalid_request");
    expect((await admin(`/admin/v1/tenants/${t.tenant_id}`)).json.output_retention_days).toBe(30);
  });

  it("is the operator's: an unknown tenant is 404, an API key or no token 401", async () => {
    expectError(await settings("ten_00000000000000000000000000", { output_retention_days: 7 }), 404, "not_found");
    expectError(await settings("nonsense", { output_retention_days: 7 }), 404, "not_found");
    const asKey = await call(`/admin/v1/tenants/${t.tenant_id}/settings`, { key: t.api_key, body: { output_retention_days: 7 } });
    expect(asKey.status).toBe(401);
    const bare = await call(`/admin/v1/tenants/${t.tenant_id}/settings`, { body: { output_retention_days: 7 } });
    expect(bare.status).toBe(401);
  });

  it("is audited as the operator's act", async () => {
    const other = await newTenant();
    await settings(other.tenant_id, { output_retention_days: 9 });
    const [entry] = await auditOf(other.tenant_id, "tenant.settings_set");
    expect(entry.actor.type).toBe("operator");
    expect(entry.details).toEqual({ output_retention_days: 9 });
  });
});

describe("output_retention_days on a create", () => {
  it("may ask for less than the tenant's, or as much, never more (422 at /output_retention_days)", async () => {
    const tenant = await newTenant({ credits: "10000" });
    await settings(tenant.tenant_id, { output_retention_days: 7 });
    const over = await createImage(tenant, { prompt: "a kept fox", output_retention_days: 8 });
    const e = expectError(over, 422, "invalid_request", "/output_retention_days");
    expect(e.details.max_days).toBe(7);
    expect((await createImage(tenant, { prompt: "a kept fox", output_retention_days: 7 })).status).toBe(202);
    expect((await createImage(tenant, { prompt: "a kept fox", output_retention_days: 1 })).status).toBe(202);
  });

  it("is refused outside 1–365 or when not an integer, with its param", async () => {
    for (const days of [0, 366, 2.5, "3", null]) {
      const res = await createImage(t, { prompt: "a fox", output_retention_days: days });
      expectError(res, 422, "invalid_request", "/output_retention_days");
    }
  });

  it("follows a change of the tenant's retention at once", async () => {
    const tenant = await newTenant({ credits: "10000" });
    expect((await createImage(tenant, { prompt: "a fox", output_retention_days: 30 })).status).toBe(202);
    await settings(tenant.tenant_id, { output_retention_days: 3 });
    expectError(await createImage(tenant, { prompt: "a fox", output_retention_days: 30 }), 422, "invalid_request");
    await settings(tenant.tenant_id, { output_retention_days: 60 });
    expect((await createImage(tenant, { prompt: "a fox", output_retention_days: 60 })).status).toBe(202);
  });

  it("a retry of a task already made is its task, even after the tenant lowered its retention", async () => {
    const tenant = await newTenant({ credits: "10000" });
    const key = newKey();
    const first = await createImage(tenant, { prompt: "a fox", output_retention_days: 20 }, key);
    expect(first.status).toBe(202);
    await settings(tenant.tenant_id, { output_retention_days: 5 });
    const again = await createImage(tenant, { prompt: "a fox", output_retention_days: 20 }, key);
    expect(again.status).toBe(202);
    expect(again.json.task_id).toBe(first.json.task_id);
  });
});
