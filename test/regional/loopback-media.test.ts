/**
 * A region's configuration refuses loopback media URLs, over http or https, before any fetch and
 * whatever the card: the local exception (test/operations/loopback-urls.test.ts) is local only.
 * The service's own artifact URLs need no exception: they are read from storage.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call, expectError, newTenant } from "../helpers/api";
import { png } from "../helpers/media-fixtures";
import { newKey } from "../helpers/tasks";

const edit = (key: string, url: string) =>
  call("/v1/images/edits", {
    key,
    body: { model: "flux-2-pro", prompt: "make it blue", images: [{ type: "url", url }] },
    headers: { "Idempotency-Key": newKey() },
  });

describe("loopback media URLs in a region", () => {
  it.each(["127.0.0.1", "localhost"])("refuses http://%s media as an invalid URL at its pointer", async (host) => {
    expect(env.ALLOW_LOOPBACK_URLS).toBe("false");
    const t = await newTenant({ mode: "test" });
    const url = new URL(`${env.RECEIVER_URL}/media/image/512x512`);
    url.hostname = host;
    const e = expectError(await edit(t.api_key, url.toString()), 422, "invalid_request", "/images/0/url");
    expect(e.details.errors[0].reason).toBe("must use https");
    url.protocol = "https:";
    expectError(await edit(t.api_key, url.toString()), 422, "invalid_request", "/images/0/url");
  });

  it("still reads the caller's own artifact URL from storage", async () => {
    const t = await newTenant({ mode: "test" });
    const up = await exports.default.fetch(
      new Request(`${BASE}/v1/uploads`, {
        method: "POST",
        body: await png(512, 512),
        headers: { Authorization: `Bearer ${t.api_key}` },
      }),
    );
    expect(up.status).toBe(201);
    const { url } = (await up.json()) as { url: string };
    const res = await edit(t.api_key, url);
    expect(res.status, res.text).toBe(202);
  });
});
