/**
 * A region's configuration refuses a tenant's provider key whose host is loopback, before the key
 * is sent anywhere: the local configuration's exception (test/byok) is local only.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, newTenant } from "../helpers/api";

describe("a provider key's host in a region", () => {
  it.each(["http://127.0.0.1:8080", "https://localhost", "https://169.254.169.254"])("refuses %s", async (base_url) => {
    expect(env.ALLOW_LOOPBACK_URLS).toBe("false");
    const t = await newTenant({ permissions: ["providers:manage"] });
    const res = await call("/v1/provider-keys/openai", {
      key: t.api_key,
      method: "PUT",
      body: { api_key: "tenant-openai-region-check-0000", base_url, mode: "prefer" },
    });
    expectError(res, 422, "invalid_request", "/base_url");
    expect((await call("/v1/provider-keys", { key: t.api_key })).json.data).toEqual([]);
  });
});
