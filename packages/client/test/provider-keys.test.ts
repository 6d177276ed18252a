/** The tenant's own provider keys from the client: each method calls its route with the key's body. */
import { describe, expect, it } from "vitest";
import { json, testClient } from "./fake-fetch.js";

describe("client.providerKeys", () => {
  it("puts, lists and deletes a provider's key", async () => {
    const { client, seen } = testClient({
      "PUT /v1/provider-keys/fal": () => json(200, { provider: "fal", mode: "prefer", last4: "abcd" }),
      "GET /v1/provider-keys": () => json(200, { object: "list", data: [] }),
      "DELETE /v1/provider-keys/fal": () => json(200, { provider: "fal", deleted: true }),
    });
    const put = await client.providerKeys.set("fal", { api_key: "tenant-fal-abcd", mode: "prefer" });
    expect(put).toMatchObject({ provider: "fal", last4: "abcd" });
    await client.providerKeys.list();
    await client.providerKeys.delete("fal");
    expect(seen.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      "PUT /v1/provider-keys/fal",
      "GET /v1/provider-keys",
      "DELETE /v1/provider-keys/fal",
    ]);
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({ api_key: "tenant-fal-abcd", mode: "prefer" });
  });
});
