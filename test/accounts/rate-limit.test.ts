import { describe, expect, it } from "vitest";
import { MAX_AGE_MS } from "../../src/accounts/key-cache";
import { admin, call, expectError, newTenant } from "../helpers/api";

describe("rate limits", () => {
  it("count requests per key per minute, report X-RateLimit-* and refuse with 429 rate_limited and Retry-After", async () => {
    const t = await newTenant();
    const set = await admin(`/admin/v1/tenants/${t.tenant_id}/rate-limit`, { rate_limit_per_minute: 3 });
    expect(set.json.rate_limit_per_minute).toBe(3);
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const res = await call("/v1/models", { key: t.api_key });
      expect(res.status).toBe(200);
      seen.push(res.headers.get("X-RateLimit-Remaining"));
      expect(res.headers.get("X-RateLimit-Limit")).toBe("3");
      expect(Number(res.headers.get("X-RateLimit-Reset"))).toBeGreaterThan(0);
    }
    expect(seen).toEqual(["2", "1", "0"]);
    const limited = await call("/v1/models", { key: t.api_key });
    const e = expectError(limited, 429, "rate_limited");
    expect(e.retryable).toBe(true);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(limited.headers.get("X-RateLimit-Remaining")).toBe("0");
  });

  it("are per key, and an operator can lift them", async () => {
    const t = await newTenant();
    await admin(`/admin/v1/tenants/${t.tenant_id}/rate-limit`, { rate_limit_per_minute: 1 });
    expect((await call("/v1/models", { key: t.api_key })).status).toBe(200);
    expectError(await call("/v1/models", { key: t.api_key }), 429, "rate_limited");
    const second = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, {});
    expect((await call("/v1/models", { key: second.json.api_key })).status).toBe(200);
    await admin(`/admin/v1/tenants/${t.tenant_id}/rate-limit`, { rate_limit_per_minute: null });
    // The key's cached resolution carries the old limit for at most MAX_AGE_MS (test/accounts/auth.test.ts).
    await expect
      .poll(async () => (await call("/v1/models", { key: t.api_key })).headers.get("X-RateLimit-Limit"), {
        timeout: MAX_AGE_MS + 1_000,
        interval: 250,
      })
      .toBeNull();
  });

  it("a tenant can be created with its own limit; bad limits are 422", async () => {
    const res = await admin("/admin/v1/tenants", { name: "limited", rate_limit_per_minute: 50 });
    expect(res.status).toBe(201);
    expect(res.json.rate_limit_per_minute).toBe(50);
    expectError(
      await admin(`/admin/v1/tenants/${res.json.tenant_id}/rate-limit`, { rate_limit_per_minute: 0 }),
      422,
      "invalid_request",
      "/rate_limit_per_minute",
    );
  });
});
