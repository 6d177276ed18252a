/**
 * A tenant's own provider keys through the API: `providers:manage` puts, lists and removes them;
 * the key is checked with the provider's cheapest authenticated call first and refused with the
 * provider's answer; no read, audit entry or row shows more of it than its last four characters.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountFor } from "../../src/accounts/account-stub";
import { unsealProviderKey } from "../../src/provider-keys/credential";
import { call, expectError, newTenant } from "../helpers/api";
import { fakeRequests } from "../providers/harness";
import { addKey, fakeUrl, manager, putKey, revokeAtProvider, storedRoutes, tenantAuth, tenantKey } from "./helpers";

async function auditOf(tenantId: string): Promise<any[]> {
  const page = (await env.ACCOUNTS.getByName(tenantId).audit({ limit: 50 })) as unknown as { entries: any[] };
  return page.entries;
}

describe("PUT /v1/provider-keys/{provider}", () => {
  it("checks the key with the provider's model list, then stores it showing only its last four characters", async () => {
    const t = await manager();
    const api_key = tenantKey("openai");
    const res = await putKey(t, "openai", { api_key, base_url: fakeUrl("openai"), mode: "prefer" });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toEqual({
      object: "provider_key",
      provider: "openai",
      mode: "prefer",
      models: null,
      failover: true,
      base_url: fakeUrl("openai"),
      last4: api_key.slice(-4),
      status: "active",
      status_reason: null,
      created_at: expect.any(String),
      updated_at: res.json.created_at,
      last_used_at: null,
      warnings: [],
    });
    expect(JSON.stringify(res.json)).not.toContain(api_key);
    // The check went to the provider with the tenant's key, not the platform's.
    const checks = (await fakeRequests("openai", "key-check")).filter((r) => r.authorization === tenantAuth("openai", api_key));
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ method: "GET", path: "/models" });

    const list = await call("/v1/provider-keys", { key: t.api_key });
    expect(list.status).toBe(200);
    // The check's warnings are the PUT's answer only.
    const { warnings: _, ...stored } = res.json;
    expect(list.json).toEqual({ object: "list", data: [stored], has_more: false });
    expect(list.text).not.toContain(api_key);
  });

  it("checks a fal key on fal's platform API", async () => {
    const t = await manager();
    const api_key = await addKey(t, "fal", { mode: "fallback", models: ["flux-2-pro"] });
    const checks = (await fakeRequests("fal", "key-check")).filter((r) => r.authorization === tenantAuth("fal", api_key));
    expect(checks).toHaveLength(1);
    expect(checks[0]?.path).toBe("/v1/models/pricing?endpoint_id=fal-ai%2Fflux-2-pro");
    const list = await call("/v1/provider-keys", { key: t.api_key });
    expect(list.json.data).toMatchObject([{ provider: "fal", mode: "fallback", models: ["flux-2-pro"], status: "active" }]);
  });

  it("refuses a key fal does not know, on a read fal documents as needing one (its model list serves anyone)", async () => {
    const t = await manager();
    const api_key = "fal-unknown-key-0123456789";
    // The model list answers such a key as anonymous, so it proves nothing.
    const anonymous = await fetch(`${fakeUrl("fal")}/v1/models?limit=1`, { headers: { Authorization: `Key ${api_key}` } });
    expect(anonymous.status).toBe(200);
    const res = await putKey(t, "fal", { api_key, base_url: fakeUrl("fal"), mode: "prefer" });
    const e = expectError(res, 422, "invalid_request", "/api_key");
    expect(e.details).toMatchObject({ reason: "provider_key_rejected", provider: "fal", provider_status: 401 });
    expect((await call("/v1/provider-keys", { key: t.api_key })).json.data).toEqual([]);
  });

  it("a host that cannot be reached is 503, saying why in words, without the runtime's internal reference", async () => {
    const t = await manager();
    // HTTPS to the fake's plain-HTTP port: the TLS handshake fails (workerd says only "internal error").
    const base_url = `https://127.0.0.1:${new URL(fakeUrl("fal")).port}`;
    const res = await putKey(t, "fal", { api_key: tenantKey("fal"), base_url, mode: "prefer" });
    const e = expectError(res, 503, "model_unavailable");
    expect(e.message).toMatch(
      /^fal could not check the key now: fal could not be reached: the TLS handshake with 127\.0\.0\.1:\d+ failed \(tls_failed\)/,
    );
    expect(e.details).toMatchObject({ provider: "fal", cause: "tls_failed" });
    expect(e.message).not.toMatch(/internal error|reference/);
    expect((await call("/v1/provider-keys", { key: t.api_key })).json.data).toEqual([]);
  });

  it("stores a kie key whose account has no credit, active, with a warning saying so", async () => {
    const t = await manager();
    const api_key = tenantKey("kie");
    await revokeAtProvider("kie", api_key, "quota");
    const res = await putKey(t, "kie", { api_key, base_url: fakeUrl("kie"), mode: "prefer" });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({
      status: "active",
      status_reason: expect.stringContaining("no credit"),
      warnings: [{ code: "provider_key_no_credit", field: "/api_key", message: expect.stringContaining("no credit") }],
    });
    expect(res.text).not.toContain(api_key);
    // The list keeps what the check found.
    const list = await call("/v1/provider-keys", { key: t.api_key });
    expect(list.json.data).toMatchObject([
      { provider: "kie", status: "active", status_reason: expect.stringContaining("no credit") },
    ]);
    // A key with credit: no warning.
    const funded = await putKey(t, "kie", { api_key: tenantKey("kie"), base_url: fakeUrl("kie"), mode: "prefer" });
    expect(funded.json).toMatchObject({ status: "active", status_reason: null, warnings: [] });
    // A key kie does not know is still refused.
    const bad = await putKey(t, "kie", { api_key: "kie-unknown-key-0123456789", base_url: fakeUrl("kie"), mode: "prefer" });
    expect(expectError(bad, 422, "invalid_request", "/api_key").details).toMatchObject({ provider_status: 401 });
  });

  it("checks Ark (BytePlus, Volcengine), MiniMax and Luma keys on a documented authenticated read", async () => {
    const t = await manager();
    for (const provider of ["byteplus", "volcengine", "minimax", "luma"]) {
      const api_key = tenantKey(provider);
      const ok = await putKey(t, provider, { api_key, base_url: fakeUrl(provider), mode: "prefer" });
      expect(ok.status, `${provider}: ${JSON.stringify(ok.json)}`).toBe(200);
      expect(ok.json, provider).toMatchObject({ status: "active", status_reason: null });
      const bad = await putKey(t, provider, {
        api_key: `${provider}-unknown-key-0123456789`,
        base_url: fakeUrl(provider),
        mode: "prefer",
      });
      const e = expectError(bad, 422, "invalid_request", "/api_key");
      expect(e.details, provider).toMatchObject({ reason: "provider_key_rejected", provider, provider_status: 401 });
    }
    const luma = (await fakeRequests("luma", "key-check")).filter((r) => r.authorization?.startsWith("Bearer tenant-luma-"));
    expect(luma.map((r) => r.path)).toContain("/files?limit=1");
    const minimax = (await fakeRequests("minimax", "key-check")).filter((r) =>
      r.authorization?.startsWith("Bearer tenant-minimax-"),
    );
    expect(minimax.map((r) => r.path)).toContain("/v1/models");
  });

  it("stores a key no call can check as unchecked, never active, and routes on it", async () => {
    const t = await manager();
    const res = await putKey(t, "dashscope", { api_key: tenantKey("dashscope"), base_url: fakeUrl("dashscope"), mode: "prefer" });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({
      status: "unchecked",
      status_reason: expect.stringContaining("no call to check"),
      warnings: [],
    });
    const list = await call("/v1/provider-keys", { key: t.api_key });
    expect(list.json.data).toMatchObject([{ provider: "dashscope", status: "unchecked" }]);
    // Unchecked is not invalid: a task's routes put the tenant's key first.
    const created = await call("/v1/videos/text-to-video", {
      key: t.api_key,
      body: { model: "wan-2.7", prompt: "A lighthouse at dawn", duration: 5, aspect_ratio: "16:9", resolution: "720p" },
      headers: { "Idempotency-Key": `unchecked-${crypto.randomUUID()}` },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(202);
    expect((await storedRoutes(created.json.task_id))[0]).toBe("dashscope:tenant");
  });

  it("refuses a key the provider rejects with 422, naming the provider's answer, and stores nothing", async () => {
    const t = await manager();
    const res = await putKey(t, "openai", { api_key: "sk-not-a-real-key-0000", base_url: fakeUrl("openai"), mode: "only" });
    const e = expectError(res, 422, "invalid_request", "/api_key");
    expect(e.details).toMatchObject({ reason: "provider_key_rejected", provider: "openai", provider_status: 401 });
    expect(e.message).toContain("Incorrect API key provided");
    expect(res.text).not.toContain("sk-not-a-real-key-0000");
    const list = await call("/v1/provider-keys", { key: t.api_key });
    expect(list.json.data).toEqual([]);
  });

  it("replaces a key in place, keeping when it was first added", async () => {
    const t = await manager();
    await addKey(t, "openai");
    const first = (await call("/v1/provider-keys", { key: t.api_key })).json.data[0];
    const second = tenantKey("openai");
    const res = await putKey(t, "openai", { api_key: second, base_url: fakeUrl("openai"), mode: "only", failover: false });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ mode: "only", failover: false, last4: second.slice(-4), created_at: first.created_at });
    expect((await call("/v1/provider-keys", { key: t.api_key })).json.data).toHaveLength(1);
  });

  it("without api_key, changes a stored key's mode, models and failover, keeping the key", async () => {
    const t = await manager();
    const api_key = await addKey(t, "fal");
    const checks = async () =>
      (await fakeRequests("fal", "key-check")).filter((r) => r.authorization === tenantAuth("fal", api_key)).length;
    const before = await checks();
    const res = await putKey(t, "fal", { mode: "only", models: ["flux-2-pro"], failover: false });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ mode: "only", models: ["flux-2-pro"], failover: false, last4: api_key.slice(-4) });
    expect(await checks()).toBe(before);
    // A new host needs its key; and there must be a key to change.
    expectError(await putKey(t, "fal", { mode: "prefer", base_url: fakeUrl("fal") }), 422, "invalid_request", "/api_key");
    expectError(await putKey(t, "openai", { mode: "prefer" }), 422, "invalid_request", "/api_key");
  });

  it("answers 404 for a provider the registry does not know, and for the simulator", async () => {
    const t = await manager();
    for (const provider of ["nope", "sandbox"]) {
      const res = await putKey(t, provider, { api_key: tenantKey("x"), mode: "prefer" });
      expectError(res, 404, "not_found");
    }
  });

  it("holds base_url to the outside-URL policy and models to the catalog", async () => {
    const t = await manager();
    const api_key = tenantKey("openai");
    expectError(
      await putKey(t, "openai", { api_key, mode: "prefer", base_url: "ftp://example.com" }),
      422,
      "invalid_request",
      "/base_url",
    );
    expectError(
      await putKey(t, "openai", { api_key, mode: "prefer", base_url: "https://user:pw@example.com" }),
      422,
      "invalid_request",
      "/base_url",
    );
    expectError(
      await putKey(t, "openai", {
        api_key,
        mode: "prefer",
        base_url: fakeUrl("openai"),
        models: ["gpt-image-2", "no-such-model"],
      }),
      422,
      "invalid_request",
      "/models/1",
    );
    // flux-2-pro has no route to OpenAI.
    expectError(
      await putKey(t, "openai", { api_key, mode: "prefer", base_url: fakeUrl("openai"), models: ["flux-2-pro"] }),
      422,
      "invalid_request",
      "/models/0",
    );
    expectError(await putKey(t, "openai", { api_key, mode: "sometimes" }), 422, "invalid_request", "/mode");
    expectError(await putKey(t, "openai", { mode: "prefer" }), 422, "invalid_request", "/api_key");
  });

  it("needs providers:manage", async () => {
    const t = await newTenant({ permissions: ["tasks:read", "tasks:write"] });
    const res = await putKey(t, "openai", { api_key: tenantKey("openai"), mode: "prefer", base_url: fakeUrl("openai") });
    expectError(res, 403, "forbidden");
    expectError(await call("/v1/provider-keys", { key: t.api_key }), 403, "forbidden");
  });

  it("keeps the key sealed at rest, bound to its tenant and provider, and out of the audit log", async () => {
    const t = await manager();
    const api_key = await addKey(t, "openai");
    const row = await runInDurableObject(accountFor(env, t.tenant_id) as DurableObjectStub<AccountObject>, (_o, state) =>
      state.storage.sql.exec<{ key_sealed: string }>("SELECT key_sealed FROM provider_keys WHERE provider = 'openai'").one(),
    );
    expect(row.key_sealed).not.toContain(api_key);
    expect(row.key_sealed).toMatch(/^v1\./);
    expect(await unsealProviderKey(env, t.tenant_id, "openai", row.key_sealed)).toBe(api_key);
    // Bound: it opens for no other tenant and no other provider.
    await expect(unsealProviderKey(env, "ten_other", "openai", row.key_sealed)).rejects.toThrow();
    await expect(unsealProviderKey(env, t.tenant_id, "fal", row.key_sealed)).rejects.toThrow();

    const entries = await auditOf(t.tenant_id);
    expect(entries.find((e) => e.action === "provider_key.put")).toMatchObject({
      target: "openai",
      actor: { type: "api_key", id: t.key_id },
    });
    expect(JSON.stringify(entries)).not.toContain(api_key);
  });
});

describe("DELETE /v1/provider-keys/{provider}", () => {
  it("removes the key; a second delete is 404", async () => {
    const t = await manager();
    await addKey(t, "openai");
    const res = await call("/v1/provider-keys/openai", { key: t.api_key, method: "DELETE" });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ object: "provider_key", provider: "openai", deleted: true });
    expect((await call("/v1/provider-keys", { key: t.api_key })).json.data).toEqual([]);
    expectError(await call("/v1/provider-keys/openai", { key: t.api_key, method: "DELETE" }), 404, "not_found");
    expectError(await call("/v1/provider-keys/nope", { key: t.api_key, method: "DELETE" }), 404, "not_found");
    const entries = await auditOf(t.tenant_id);
    expect(entries.some((e) => e.action === "provider_key.delete" && e.target === "openai")).toBe(true);
  });
});
