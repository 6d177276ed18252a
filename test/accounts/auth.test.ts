import { describe, expect, it } from "vitest";
import { generateApiKey, hashApiKey, parseApiKey } from "../../src/accounts/api-keys";
import { admin, call, expectError, newTenant } from "../helpers/api";

describe("API keys", () => {
  it("have the form sk_<region>_<secret> with at least 32 random bytes of secret", () => {
    const key = generateApiKey("us");
    const parsed = parseApiKey(key);
    expect(parsed?.region).toBe("us");
    // 43 base62 characters carry log2(62) * 43 ≈ 256 bits.
    expect(parsed?.secret).toHaveLength(43);
    expect(generateApiKey("us")).not.toBe(key);
  });

  it("are stored only as a hash", async () => {
    const t = await newTenant();
    const hash = await hashApiKey(t.api_key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const { runInDurableObject } = await import("cloudflare:test");
    const { env } = await import("cloudflare:workers");
    await runInDurableObject(env.ACCOUNTS.getByName(t.tenant_id), async (_obj, state) => {
      const rows = state.storage.sql.exec("SELECT * FROM api_keys").toArray();
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(t.api_key);
      expect(rows[0]?.key_hash).toBe(hash);
    });
  });
});

describe("authentication", () => {
  it("accepts a valid key", async () => {
    const t = await newTenant();
    const res = await call("/v1/models", { key: t.api_key });
    expect(res.status).toBe(200);
  });

  it.each([
    ["no header", undefined],
    ["not bearer", "Basic abc"],
    ["empty bearer", "Bearer "],
    ["not a key", "Bearer hello"],
    ["short secret", "Bearer sk_us_abc"],
    ["bad characters", `Bearer sk_us_${"!".repeat(43)}`],
  ])("401 unauthorized for %s", async (_name, header) => {
    const res = await call("/v1/models", { headers: header ? { Authorization: header } : {} });
    expectError(res, 401, "unauthorized");
  });

  it("401 invalid_api_key for a well-formed unknown key", async () => {
    expectError(await call("/v1/models", { key: generateApiKey("us") }), 401, "invalid_api_key");
  });

  it("400 api_key_region_mismatch for a well-formed key of another region, before any lookup", async () => {
    const res = await call("/v1/models", { key: generateApiKey("eu") });
    const e = expectError(res, 400, "api_key_region_mismatch");
    expect(e.details).toEqual({ key_region: "eu", endpoint_region: "us" });
  });

  it("revocation takes effect on the next request", async () => {
    const t = await newTenant();
    expect((await call("/v1/models", { key: t.api_key })).status).toBe(200);
    const r = await admin(`/admin/v1/api-keys/${t.key_id}/revoke`, {});
    expect(r.status).toBe(200);
    expect(r.json.status).toBe("revoked");
    expectError(await call("/v1/models", { key: t.api_key }), 401, "invalid_api_key");
    // Revoking twice is harmless.
    expect((await admin(`/admin/v1/api-keys/${t.key_id}/revoke`, {})).json.status).toBe("revoked");
  });

  it("a disabled tenant gets 403 tenant_disabled at once, and enabling restores access", async () => {
    const t = await newTenant();
    expect((await admin(`/admin/v1/tenants/${t.tenant_id}/disable`, {})).json.status).toBe("disabled");
    expectError(await call("/v1/models", { key: t.api_key }), 403, "tenant_disabled");
    expect((await admin(`/admin/v1/tenants/${t.tenant_id}/enable`, {})).json.status).toBe("active");
    expect((await call("/v1/models", { key: t.api_key })).status).toBe(200);
  });

  it("a key without the permission a route needs gets 403 forbidden", async () => {
    const t = await newTenant({ permissions: ["tasks:read"] });
    const e = expectError(await call("/v1/catalog/capabilities", { key: t.api_key }), 403, "forbidden");
    expect(e.details.required_permission).toBe("catalog:read");
  });

  it("authentication comes before validation", async () => {
    expectError(await call("/v1/voices?category=robot"), 401, "unauthorized");
  });
});
