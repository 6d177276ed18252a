/**
 * A region's configuration refuses a storage destination on this machine: the fake store the
 * local tests write to (and any loopback or private endpoint) is refused before any call to it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { destinationBody, newBucket, requestsTo } from "../../destinations/s3";
import { call, expectError, newTenant } from "../../helpers/api";

describe("storage destinations in a region", () => {
  it("refuses a loopback or private endpoint, and never calls it", async () => {
    expect(env.ALLOW_LOOPBACK_URLS).toBe("false");
    const t = await newTenant({ permissions: ["storage:manage"] });
    const b = await newBucket();
    for (const endpoint of [env.FAKE_S3_URL, "http://localhost:9000", "https://127.0.0.1", "https://10.1.2.3"]) {
      const res = await call("/v1/storage-destinations", { key: t.api_key, body: destinationBody(b, { endpoint }) });
      expectError(res, 422, "invalid_request", "/endpoint");
    }
    expect(await requestsTo(b)).toEqual([]);
  });
});
