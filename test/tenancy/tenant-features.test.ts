/**
 * Features that cost nothing unused: what a tenant's account tells an isolate of the features it
 * uses (its own provider keys, webhook endpoints, a default storage destination) spares the calls
 * for them, and is trusted only within the key cache's bound, so a feature turned on anywhere
 * reaches every isolate within it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { accountFor } from "../../src/accounts/account-stub";
import { withDefaultDestination } from "../../src/destinations/admission";
import { hashApiKey } from "../../src/keys/api-keys";
import { tenantKeyPlans } from "../../src/provider-keys/routing";
import type { TaskRecord } from "../../src/task-record/record";
import {
  forgetFeatures,
  KNOWLEDGE_MAX_AGE_MS,
  keepAnswer,
  keptAnswer,
  knownWithout,
  learnFeatures,
  type TenantFeatures,
} from "../../src/tenancy/tenant-features";
import { webhookAccount } from "../../src/webhooks/task-deliveries";
import { destinationBody, newBucket } from "../destinations/s3";
import { call, newTenant, type TestTenant } from "../helpers/api";

const NONE: TenantFeatures = { provider_keys: false, webhook_endpoints: false, default_destination: false };
/** A provider key written straight into the account (its check with the provider is not the point here). */
const FAL_KEY = {
  provider: "fal",
  key_sealed: "sealed",
  last4: "abcd",
  base_url: null,
  mode: "prefer",
  models: null,
  failover: true,
  status: "active",
  status_reason: null,
} as const;

async function resolution(t: TestTenant) {
  const resolved = await accountFor(env, t.tenant_id).resolveKey(t.key_id, await hashApiKey(t.api_key));
  if (!resolved.ok) throw new Error("the key did not resolve");
  return resolved.features;
}

describe("what an isolate knows of a tenant's features", () => {
  it("trusts an answer for the key cache's bound, never an older answer over a newer one", () => {
    const tenant = `ten_${crypto.randomUUID()}`;
    const at = 1_000_000;
    expect(knownWithout(tenant, "webhook_endpoints", at)).toBe(false);
    learnFeatures(tenant, NONE, at);
    expect(knownWithout(tenant, "webhook_endpoints", at + KNOWLEDGE_MAX_AGE_MS - 1)).toBe(true);
    expect(knownWithout(tenant, "webhook_endpoints", at + KNOWLEDGE_MAX_AGE_MS)).toBe(false);
    learnFeatures(tenant, { ...NONE, webhook_endpoints: true }, at + 10);
    learnFeatures(tenant, NONE, at + 5);
    expect(knownWithout(tenant, "webhook_endpoints", at + 20)).toBe(false);
    expect(knownWithout(tenant, "provider_keys", at + 20)).toBe(true);
    forgetFeatures(tenant);
    expect(knownWithout(tenant, "provider_keys", at + 20)).toBe(false);
  });

  it("keeps an answer a feature in use needs for the same bound, and forgets it with the features", () => {
    const tenant = `ten_${crypto.randomUUID()}`;
    const at = 2_000_000;
    keepAnswer(tenant, "plans", ["first"], at);
    expect(keptAnswer(tenant, "plans", at + KNOWLEDGE_MAX_AGE_MS - 1)).toEqual(["first"]);
    expect(keptAnswer(tenant, "plans", at + KNOWLEDGE_MAX_AGE_MS)).toBeUndefined();
    expect(keptAnswer(tenant, "other", at + 1)).toBeUndefined();
    // An answer read earlier never replaces one read later.
    keepAnswer(tenant, "plans", ["older"], at - 10);
    expect(keptAnswer(tenant, "plans", at + 1)).toEqual(["first"]);
    forgetFeatures(tenant);
    expect(keptAnswer(tenant, "plans", at + 1)).toBeUndefined();
  });
});

describe("a key's resolution carries the tenant's features", () => {
  it("none for a new tenant; an endpoint once the tenant has one", async () => {
    const t = await newTenant({ permissions: ["tasks:read", "tasks:write", "webhooks:manage"] });
    expect(await resolution(t)).toEqual(NONE);
    const endpoint = await call("/v1/webhook-endpoints", {
      key: t.api_key,
      body: { url: "https://hooks.example.com/features", events: ["*"] },
    });
    expect(endpoint.status, JSON.stringify(endpoint.json)).toBe(201);
    expect(await resolution(t)).toEqual({ ...NONE, webhook_endpoints: true });
  });

  it("a default destination, not one that is not the default", async () => {
    const t = await newTenant({ permissions: ["tasks:read", "tasks:write", "storage:manage"] });
    const bucket = await newBucket();
    const destination = await call("/v1/storage-destinations", { key: t.api_key, body: destinationBody(bucket) });
    expect(destination.status, JSON.stringify(destination.json)).toBe(201);
    // A destination that is not the default changes nothing a create without one does.
    expect(await resolution(t)).toEqual(NONE);
    const made = await call(`/v1/storage-destinations/${destination.json.destination_id}`, {
      key: t.api_key,
      method: "PATCH",
      body: { default: true },
    });
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    expect(await resolution(t)).toEqual({ ...NONE, default_destination: true });
  });

  it("the tenant's own provider keys, until the provider refuses the key", async () => {
    const t = await newTenant();
    await accountFor(env, t.tenant_id).putProviderKey(FAL_KEY);
    expect(await resolution(t)).toEqual({ ...NONE, provider_keys: true });
    await accountFor(env, t.tenant_id).providerKeyRejected("fal", "401 from the provider");
    expect((await resolution(t))?.provider_keys).toBe(false);
  });
});

describe("a feature the tenant does not use costs no call", () => {
  it("a create's key plans come from the key's resolution when it says none", async () => {
    const t = await newTenant();
    await accountFor(env, t.tenant_id).putProviderKey(FAL_KEY);
    // A resolution that still says none (read before the key was added) is not asked past: no call, no plans.
    expect(await tenantKeyPlans(env, { tenant_id: t.tenant_id, mode: "live", features: NONE })).toEqual([]);
    // Without that knowledge the account is asked, and answers the key.
    const asked = await tenantKeyPlans(env, { tenant_id: t.tenant_id, mode: "live" });
    expect(asked.map((p) => p.provider)).toEqual(["fal"]);
    // A test-mode key never uses the tenant's keys.
    expect(await tenantKeyPlans(env, { tenant_id: t.tenant_id, mode: "test" })).toEqual([]);
  });

  it("a tenant with keys asks for its plans once within the bound; a change made through this isolate is seen at once", async () => {
    const t = await newTenant({ permissions: ["tasks:read", "tasks:write", "providers:manage"] });
    const account = accountFor(env, t.tenant_id);
    await account.putProviderKey(FAL_KEY);
    const caller = { tenant_id: t.tenant_id, mode: "live" as const };
    expect((await tenantKeyPlans(env, caller)).map((p) => p.provider)).toEqual(["fal"]);
    // A key written behind this isolate's back (as another isolate would): the kept plans stand within the bound.
    await account.putProviderKey({ ...FAL_KEY, provider: "replicate" });
    expect((await tenantKeyPlans(env, caller)).map((p) => p.provider)).toEqual(["fal"]);
    // A key added through the API here is in the very next create's plans.
    const put = await call("/v1/provider-keys/dashscope", {
      key: t.api_key,
      method: "PUT",
      body: { api_key: "features-dashscope-key-0123456789", mode: "prefer" },
    });
    expect(put.status, JSON.stringify(put.json)).toBeLessThan(300);
    expect((await tenantKeyPlans(env, caller)).map((p) => p.provider).sort()).toEqual(["dashscope", "fal", "replicate"]);
  });

  it("a task's outputs look for the default destination only when no fresh answer says there is none", async () => {
    const t = await newTenant({ permissions: ["tasks:read", "tasks:write", "storage:manage"] });
    const bucket = await newBucket();
    const made = await call("/v1/storage-destinations", { key: t.api_key, body: destinationBody(bucket, { default: true }) });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const rec = { tenant_id: t.tenant_id, mode: "live", delivery: null } as unknown as TaskRecord;

    learnFeatures(t.tenant_id, NONE);
    expect((await withDefaultDestination(env, rec)).delivery).toBeNull();

    // An answer as old as the key cache's bound is not trusted: the account is asked, and the default found.
    forgetFeatures(t.tenant_id);
    learnFeatures(t.tenant_id, NONE, Date.now() - KNOWLEDGE_MAX_AGE_MS);
    expect((await withDefaultDestination(env, rec)).delivery).toMatchObject({ destination_id: made.json.destination_id });
  });

  it("a task's webhook fan-out asks for endpoints only when no fresh answer says there are none", async () => {
    const t = await newTenant({ permissions: ["tasks:read", "tasks:write", "webhooks:manage"] });
    const endpoint = await call("/v1/webhook-endpoints", {
      key: t.api_key,
      body: { url: "https://hooks.example.com/fan-out", events: ["*"] },
    });
    expect(endpoint.status).toBe(201);
    const account = accountFor(env, t.tenant_id);

    learnFeatures(t.tenant_id, NONE);
    expect(await webhookAccount(account, t.tenant_id).webhookTargets("task.succeeded", "live")).toEqual([]);

    forgetFeatures(t.tenant_id);
    expect(await webhookAccount(account, t.tenant_id).webhookTargets("task.succeeded", "live")).toEqual([
      { endpoint_id: endpoint.json.endpoint_id, enabled: true },
    ]);
  });
});
