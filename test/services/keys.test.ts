/**
 * Keys managed through the API: a `keys:manage` key creates, lists, reads, changes and revokes
 * its tenant's keys, never beyond what it holds itself, never another tenant's; every action is
 * in the audit log with the acting key.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";

const manager = (opts: { permissions?: string[]; mode?: "live" | "test"; credits?: string } = {}) =>
  newTenant({ permissions: opts.permissions ?? ["catalog:read", "tasks:read", "tasks:write", "chat", "keys:manage"], ...opts });

const createKey = (t: TestTenant, body: Record<string, unknown>) => call("/v1/keys", { key: t.api_key, body });

async function auditOf(tenantId: string): Promise<any[]> {
  const page = (await env.ACCOUNTS.getByName(tenantId).audit({ limit: 50 })) as unknown as { entries: any[] };
  return page.entries;
}

describe("POST /v1/keys", () => {
  it("creates a key shown once, with its limits, that works at once", async () => {
    const t = await manager();
    const res = await createKey(t, {
      name: "user-42",
      permissions: ["catalog:read", "tasks:write"],
      limits: { credits: "25", period: "month", models: ["gpt-image-2"] },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({
      key_id: expect.stringMatching(/^key_/),
      api_key: expect.stringMatching(/^sk_[a-z]+_live_/),
      name: "user-42",
      mode: "live",
      permissions: ["catalog:read", "tasks:write"],
      limits: { credits: "25", period: "month", models: ["gpt-image-2"] },
      created_at: expect.any(String),
    });
    const own = await call("/v1/key", { key: res.json.api_key });
    expect(own.status).toBe(200);
    expect(own.json).toMatchObject({
      key_id: res.json.key_id,
      limits: { credits: "25", period: "month" },
      spent_credits: "0",
      reserved_credits: "0",
      remaining_credits: "25",
      period_started_at: expect.stringMatching(/-01T00:00:00.000Z$/),
      period_resets_at: expect.stringMatching(/-01T00:00:00.000Z$/),
    });
    // Never the secret again.
    const read = await call(`/v1/keys/${res.json.key_id}`, { key: t.api_key });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.json)).not.toContain(res.json.api_key);
    expect(read.json).toMatchObject({ key_id: res.json.key_id, created_by: `api_key:${t.key_id}`, remaining_credits: "25" });
  });

  it("defaults to the managing key's permissions less keys:manage, and its mode", async () => {
    const t = await manager({ mode: "test" });
    const res = await createKey(t, {});
    expect(res.status).toBe(201);
    expect(res.json.mode).toBe("test");
    expect(res.json.permissions).toEqual(["catalog:read", "tasks:read", "tasks:write", "chat"]);
  });

  it("refuses a permission the managing key does not hold, naming it", async () => {
    const t = await manager({ permissions: ["catalog:read", "keys:manage"] });
    const res = await createKey(t, { permissions: ["catalog:read", "keys:manage", "tasks:write"] });
    expectError(res, 403, "forbidden", "/permissions/2");
    expect(res.json.error.details.reason).toBe("permission_not_held");
  });

  it("a test key makes test keys only", async () => {
    const t = await manager({ mode: "test" });
    expectError(await createKey(t, { mode: "live" }), 403, "forbidden", "/mode");
  });

  it("a limited managing key hands out limits within its own only", async () => {
    const t = await manager();
    const limited = await createKey(t, { limits: { credits: "10", period: "day", models: ["gpt-image-2"] } });
    const sub = { ...t, api_key: limited.json.api_key, key_id: limited.json.key_id };
    // Made without keys:manage (the default leaves it out): it manages nothing.
    expectError(await createKey(sub, {}), 403, "forbidden");
    const withManage = await createKey(t, {
      permissions: ["tasks:write", "keys:manage"],
      limits: { credits: "10", period: "day", models: ["gpt-image-2"] },
    });
    const m = { ...t, api_key: withManage.json.api_key, key_id: withManage.json.key_id };
    expectError(await createKey(m, { permissions: ["tasks:write"] }), 403, "forbidden", "/limits/credits");
    expectError(
      await createKey(m, { permissions: ["tasks:write"], limits: { credits: "11", period: "day", models: ["gpt-image-2"] } }),
      403,
      "forbidden",
      "/limits/credits",
    );
    expectError(
      await createKey(m, { permissions: ["tasks:write"], limits: { credits: "5", period: "month", models: ["gpt-image-2"] } }),
      403,
      "forbidden",
      "/limits/period",
    );
    expectError(
      await createKey(m, {
        permissions: ["tasks:write"],
        limits: { credits: "5", period: "day", models: ["gpt-image-2", "flux-2-pro"] },
      }),
      403,
      "forbidden",
      "/limits/models/1",
    );
    const ok = await createKey(m, {
      permissions: ["tasks:write"],
      limits: { credits: "5", period: "day", models: ["gpt-image-2"] },
    });
    expect(ok.status).toBe(201);
    // Nor may it lift its own limits.
    const own = await call(`/v1/keys/${m.key_id}`, { key: m.api_key, method: "PATCH", body: { limits: null } });
    expectError(own, 403, "forbidden", "/limits");
  });

  it("refuses an unknown model in a list and a malformed credit figure with 422", async () => {
    const t = await manager();
    expectError(await createKey(t, { limits: { models: ["no-such-model"] } }), 422, "invalid_request", "/limits/models/0");
    expectError(await createKey(t, { limits: { credits: "ten" } }), 422, "invalid_request", "/limits/credits");
    expectError(await createKey(t, { limits: { period: "year" } }), 422, "invalid_request", "/limits/period");
  });

  it("needs keys:manage", async () => {
    const t = await newTenant();
    expectError(await createKey(t, {}), 403, "forbidden");
    expectError(await call("/v1/keys", { key: t.api_key }), 403, "forbidden");
  });
});

describe("GET, PATCH, DELETE /v1/keys", () => {
  it("lists the tenant's keys newest first with a cursor, never their secrets", async () => {
    const t = await manager();
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await createKey(t, { name: `k${i}` })).json.key_id);
    const first = await call("/v1/keys?limit=2", { key: t.api_key });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ object: "list", has_more: true, next_cursor: expect.any(String) });
    expect(first.json.data.map((k: any) => k.key_id)).toEqual([made[2], made[1]]);
    const second = await call(`/v1/keys?limit=2&cursor=${first.json.next_cursor}`, { key: t.api_key });
    expect(second.json.data.map((k: any) => k.key_id)).toEqual([made[0], t.key_id]);
    expect(second.json).toMatchObject({ has_more: false, next_cursor: null });
    expect(JSON.stringify([first.json, second.json])).not.toMatch(/sk_[a-z]+_live_[0-9A-Za-z]{43}/);
    expectError(await call("/v1/keys?cursor=bogus", { key: t.api_key }), 400, "invalid_cursor", "/cursor");
    // Another tenant's cursor is refused too.
    const other = await manager();
    expectError(await call(`/v1/keys?cursor=${first.json.next_cursor}`, { key: other.api_key }), 400, "invalid_cursor");
  });

  it("another tenant's key is not found, to read, change or revoke", async () => {
    const t = await manager();
    const other = await manager();
    const theirs = (await createKey(other, {})).json.key_id;
    expectError(await call(`/v1/keys/${theirs}`, { key: t.api_key }), 404, "not_found");
    expectError(await call(`/v1/keys/${theirs}`, { key: t.api_key, method: "PATCH", body: { name: "x" } }), 404, "not_found");
    expectError(await call(`/v1/keys/${theirs}`, { key: t.api_key, method: "DELETE" }), 404, "not_found");
  });

  it("a key holding more than the managing key is out of its reach", async () => {
    const t = await manager({ permissions: ["catalog:read", "keys:manage"] });
    const full = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, {});
    const res = await call(`/v1/keys/${full.json.key_id}`, { key: t.api_key, method: "DELETE" });
    expectError(res, 403, "forbidden");
    expect(res.json.error.details.reason).toBe("key_beyond_own_permissions");
  });

  it("disables, enables, renames, limits and revokes a key, each audited with the acting key", async () => {
    const t = await manager();
    const k = (await createKey(t, { name: "worker" })).json;
    const path = `/v1/keys/${k.key_id}`;
    const off = await call(path, { key: t.api_key, method: "PATCH", body: { disabled: true } });
    expect(off.json.status).toBe("disabled");
    expectError(await call("/v1/key", { key: k.api_key }), 401, "invalid_api_key");
    const on = await call(path, { key: t.api_key, method: "PATCH", body: { disabled: false, name: "renamed" } });
    expect(on.json).toMatchObject({ status: "active", name: "renamed" });
    expect((await call("/v1/key", { key: k.api_key })).status).toBe(200);
    const limited = await call(path, { key: t.api_key, method: "PATCH", body: { limits: { credits: "3", period: "week" } } });
    expect(limited.json.limits).toEqual({ credits: "3", period: "week" });
    expect((await call("/v1/key", { key: k.api_key })).json.remaining_credits).toBe("3");
    const revoked = await call(path, { key: t.api_key, method: "DELETE" });
    expect(revoked.json.status).toBe("revoked");
    expectError(await call("/v1/key", { key: k.api_key }), 401, "invalid_api_key");
    expectError(await call(path, { key: t.api_key, method: "PATCH", body: { disabled: false } }), 409, "conflict");
    const entries = (await auditOf(t.tenant_id)).filter((e: any) => e.target === k.key_id);
    expect(entries.map((e: any) => e.action).sort()).toEqual(
      ["api_key.create", "api_key.revoke", "api_key.update", "api_key.update", "api_key.update"].sort(),
    );
    for (const e of entries) expect(e.actor).toMatchObject({ type: "api_key", id: t.key_id });
  });

  it("the operator sets and shows the same limits", async () => {
    const t = await newTenant();
    const made = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { limits: { credits: "7.5", period: "day" } });
    expect(made.status).toBe(201);
    expect(made.json.limits).toEqual({ credits: "7.5", period: "day" });
    const set = await admin(`/admin/v1/api-keys/${made.json.key_id}/limits`, { limits: { capabilities: ["text_to_image"] } });
    expect(set.status).toBe(200);
    expect(set.json.limits).toEqual({ period: "total", capabilities: ["text_to_image"] });
    const cleared = await admin(`/admin/v1/api-keys/${made.json.key_id}/limits`, { limits: null });
    expect(cleared.json.limits).toBeNull();
  });
});

describe("a change of limits", () => {
  it("binds the key's next request at once (this isolate forgets the key's cached resolution)", async () => {
    const t = await manager();
    const k = (await createKey(t, { permissions: ["tasks:write", "catalog:read"] })).json;
    const image = (model: string) =>
      call("/v1/images/generations", {
        key: k.api_key,
        body: { prompt: "x", model, metadata: { sandbox_fault: "stay_queued" } },
        headers: { "Idempotency-Key": crypto.randomUUID() },
      });
    expect((await image("gpt-image-2")).status).toBe(202);
    const patched = await call(`/v1/keys/${k.key_id}`, {
      key: t.api_key,
      method: "PATCH",
      body: { limits: { models: ["flux-2-pro"] } },
    });
    expect(patched.status).toBe(200);
    const refused = await image("gpt-image-2");
    expectError(refused, 403, "forbidden", "/model");
    expect(refused.json.error.details.reason).toBe("model_not_allowed");
    expect((await image("flux-2-pro")).status).toBe(202);
  });
});

describe("a test-mode managing key", () => {
  it("lists and reaches test-mode keys only", async () => {
    const t = await manager({ mode: "test" });
    const live = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { permissions: ["catalog:read"] });
    const mine = (await createKey(t, { permissions: ["catalog:read"] })).json.key_id;
    const listed = (await call("/v1/keys", { key: t.api_key })).json.data.map((k: any) => k.key_id);
    expect(listed).toContain(mine);
    expect(listed).not.toContain(live.json.key_id);
    expect(listed.length).toBe(2);
    expectError(await call(`/v1/keys/${live.json.key_id}`, { key: t.api_key }), 404, "not_found");
    expectError(await call(`/v1/keys/${live.json.key_id}`, { key: t.api_key, method: "DELETE" }), 404, "not_found");
  });

  it("validates bodies and paths with the spec's envelope", async () => {
    const t = await manager();
    expectError(await call("/v1/keys", { key: t.api_key, body: { bogus: 1 } }), 422, "invalid_request");
    expectError(
      await call("/v1/keys", { key: t.api_key, body: { permissions: ["root"] } }),
      422,
      "invalid_request",
      "/permissions/0",
    );
    expectError(await call("/v1/keys/key_nope", { key: t.api_key }), 404, "not_found");
    expectError(
      await call(`/v1/keys/${t.key_id}`, { key: t.api_key, method: "PATCH", body: { disabled: "yes" } }),
      422,
      "invalid_request",
      "/disabled",
    );
  });
});
