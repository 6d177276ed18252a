/**
 * API key rotation: a new key with the same name, permissions and mode; the old key keeps
 * working for the grace period chosen (none, 1 h, 24 h, 7 d) and then answers 401
 * `invalid_api_key`. The service takes the clock the grace starts from, so a test puts the
 * rotation in the past instead of waiting.
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountFor } from "../../src/accounts/account-stub";
import type { KeyResolution } from "../../src/accounts/api-key-answers";
import { KeyCache, MAX_AGE_MS, usable } from "../../src/accounts/key-cache";
import { GRACE_PERIODS, GRACES, rotateApiKey } from "../../src/accounts/key-rotation";
import { revokeApiKey } from "../../src/accounts/service";
import { createApp } from "../../src/app";
import { listAudit } from "../../src/audit/audit";
import { admin, BASE, call, expectError, newTenant } from "../helpers/api";

const models = (key: string) => call("/v1/models", { key });

async function keyRow(tenantId: string, keyId: string) {
  return runInDurableObject(accountFor(env, tenantId) as DurableObjectStub<AccountObject>, (o) => o.apiKey(keyId));
}

describe("rotating an API key", () => {
  it.each(GRACES.filter((g) => g !== "none"))(
    "with grace %s: the old key works until the grace ends, then 401",
    async (grace) => {
      const ms = GRACE_PERIODS[grace];
      // A rotation made (grace − 1 min) ago: one minute of grace is left.
      const t = await newTenant();
      expect((await models(t.api_key)).status).toBe(200);
      const within = await rotateApiKey(env, t.key_id, grace, undefined, { now_ms: Date.now() - ms + 60_000 });
      expect((await models(t.api_key)).status).toBe(200);
      expect((await models(within.api_key)).status).toBe(200);
      expect(within.old.status).toBe("active");
      expect(Date.parse(within.old.expires_at as string) - Date.now()).toBeGreaterThan(0);

      // A rotation made (grace + 1 s) ago: the grace is over.
      const u = await newTenant();
      expect((await models(u.api_key)).status).toBe(200);
      const after = await rotateApiKey(env, u.key_id, grace, undefined, { now_ms: Date.now() - ms - 1_000 });
      expectError(await models(u.api_key), 401, "invalid_api_key");
      expect((await models(after.api_key)).status).toBe(200);
      expect((await keyRow(u.tenant_id, u.key_id))?.status).toBe("expired");
    },
  );

  it("with grace none: the old key stops at once, the new one works", async () => {
    const t = await newTenant();
    expect((await models(t.api_key)).status).toBe(200); // cached in this isolate: the rotation must drop it
    const r = await rotateApiKey(env, t.key_id, "none");
    expect(r.old.expires_at).toBe(r.record.created_at);
    expectError(await models(t.api_key), 401, "invalid_api_key");
    expect((await models(r.api_key)).status).toBe(200);
  });

  it("keeps the name, permissions and mode; links the old key to the new; records who did it", async () => {
    const tenant = await admin("/admin/v1/tenants", { name: "Rotations", credits: "10" });
    const k = await admin(`/admin/v1/tenants/${tenant.json.tenant_id}/api-keys`, {
      name: "ci",
      permissions: ["catalog:read", "chat"],
      mode: "test",
    });
    expect(k.json).toMatchObject({ name: "ci", mode: "test", permissions: ["catalog:read", "chat"] });
    const res = await call(`/admin/v1/api-keys/${k.json.key_id}/rotate`, {
      key: "test-admin-token-0123456789abcdef",
      body: { grace: "24h" },
      headers: { "CF-Connecting-IP": "203.0.113.9" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.key).toMatchObject({ name: "ci", mode: "test", permissions: ["catalog:read", "chat"] });
    expect(res.json.key.api_key).toMatch(/^sk_us_test_[0-9A-Za-z]{43}$/);
    expect(res.json.old).toMatchObject({ key_id: k.json.key_id, status: "active", replaced_by: res.json.key.key_id });
    expect(Date.parse(res.json.old.expires_at) - Date.parse(res.json.key.created_at)).toBe(GRACE_PERIODS["24h"]);
    const created = await keyRow(tenant.json.tenant_id, res.json.key.key_id);
    expect(created).toMatchObject({ name: "ci", created_by: "operator", prefix: res.json.key.api_key.slice(0, 15) });
    const audit = await listAudit(env, tenant.json.tenant_id, { limit: 5 });
    expect(audit.entries[0]).toMatchObject({
      action: "api_key.rotate",
      target: k.json.key_id,
      actor: { type: "operator", id: "operator" },
      ip: "203.0.113.9",
      details: { new_key_id: res.json.key.key_id, grace: "24h", expires_at: res.json.old.expires_at },
    });
  });

  it("refuses to rotate a key twice, a revoked or expired key (409), an unknown key (404) and a bad grace (422)", async () => {
    const t = await newTenant();
    const r = await rotateApiKey(env, t.key_id, "7d");
    const twice = expectError(await admin(`/admin/v1/api-keys/${t.key_id}/rotate`, { grace: "1h" }), 409, "conflict");
    expect(twice.details).toMatchObject({ replaced_by: r.record.key_id });
    await revokeApiKey(env, r.record.key_id);
    expectError(await admin(`/admin/v1/api-keys/${r.record.key_id}/rotate`, { grace: "1h" }), 409, "conflict");
    const u = await newTenant();
    const gone = await rotateApiKey(env, u.key_id, "none");
    expectError(await admin(`/admin/v1/api-keys/${u.key_id}/rotate`, { grace: "1h" }), 409, "conflict");
    expect((await admin(`/admin/v1/api-keys/${gone.record.key_id}/rotate`, { grace: "1h" })).status).toBe(200);
    expectError(await admin("/admin/v1/api-keys/key_unknown/rotate", { grace: "1h" }), 404, "not_found");
    expectError(await admin(`/admin/v1/api-keys/${t.key_id}/rotate`, { grace: "2h" }), 422, "invalid_request", "/grace");
    expectError(await admin(`/admin/v1/api-keys/${t.key_id}/rotate`, {}), 422, "invalid_request", "/grace");
  });

  it("revoking the old key during its grace stops it at once", async () => {
    const t = await newTenant();
    await rotateApiKey(env, t.key_id, "7d");
    expect((await models(t.api_key)).status).toBe(200);
    await revokeApiKey(env, t.key_id);
    expectError(await models(t.api_key), 401, "invalid_api_key");
  });
});

describe("last used", () => {
  it("is set to the minute of the first use, after the response", async () => {
    const t = await newTenant();
    expect((await keyRow(t.tenant_id, t.key_id))?.last_used_at).toBeNull();
    const ctx = createExecutionContext();
    const res = await createApp().fetch(
      new Request(`${BASE}/v1/models`, { headers: { Authorization: `Bearer ${t.api_key}` } }),
      env,
      ctx,
    );
    expect(res.status).toBe(200);
    await waitOnExecutionContext(ctx);
    const used = (await keyRow(t.tenant_id, t.key_id))?.last_used_at as string;
    expect(used).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
    expect(Date.now() - Date.parse(used)).toBeLessThan(120_000);
  });

  it("only moves forward", async () => {
    const t = await newTenant();
    const stub = accountFor(env, t.tenant_id);
    await stub.touchApiKey(t.key_id, "2030-01-01T00:05:00.000Z");
    await stub.touchApiKey(t.key_id, "2030-01-01T00:04:00.000Z");
    expect((await keyRow(t.tenant_id, t.key_id))?.last_used_at).toBe("2030-01-01T00:05:00.000Z");
  });
});

describe("the key cache and a rotated key's end", () => {
  const ok = (expires_at: number | null): KeyResolution => ({
    ok: true,
    tenant_id: "ten_a",
    key_id: "key_a",
    permissions: ["chat"],
    rate_limit_per_minute: null,
    expires_at,
  });

  it("a cached resolution is refused from the instant its expires_at passes, however fresh the entry", async () => {
    let now = 1_000_000;
    const cache = new KeyCache(() => now);
    let reads = 0;
    const load = async () => {
      reads++;
      return ok(now + 1_000);
    };
    const first = await cache.resolve("h", load, () => {});
    expect(usable(first, now)).toBe(true);
    now += 999;
    expect(usable(await cache.resolve("h", load, () => {}), now)).toBe(true);
    now += 1;
    expect(usable(await cache.resolve("h", load, () => {}), now)).toBe(false);
    expect(reads).toBe(1); // decided from the cached entry, without a read
  });

  it("a resolution cached before a rotation elsewhere is re-read within MAX_AGE_MS", async () => {
    let now = 0;
    const cache = new KeyCache(() => now);
    let answer = ok(null);
    const background: Promise<unknown>[] = [];
    await cache.resolve(
      "h",
      async () => answer,
      (p) => background.push(p),
    );
    answer = ok(now + 10); // another isolate rotated it with a grace ending at 10 ms
    now = MAX_AGE_MS;
    const fresh = await cache.resolve(
      "h",
      async () => answer,
      (p) => background.push(p),
    );
    expect(usable(fresh, now)).toBe(false);
  });

  it("forgets a key this isolate changed", async () => {
    const cache = new KeyCache(() => 0);
    let reads = 0;
    const load = async () => {
      reads++;
      return ok(null);
    };
    await cache.resolve("h", load, () => {});
    cache.forgetKey("key_a");
    await cache.resolve("h", load, () => {});
    expect(reads).toBe(2);
  });
});
