/**
 * The service's S3 calls (src/destinations/s3.ts) against the fake store: how an object's URL is
 * addressed, a streamed upload (the path of outputs above SIGNED_PAYLOAD_MAX_BYTES), and how a
 * refusal or an unreachable store is reported.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deleteObject, objectUrl, putObject, type S3Target } from "../../src/destinations/s3";
import { newBucket, objectsIn, requestsTo } from "./s3";

const target = (over: Partial<S3Target> = {}): S3Target => ({
  endpoint: "https://s3.eu-west-1.amazonaws.com",
  bucket: "my-bucket",
  region: "eu-west-1",
  path_style: false,
  access_key_id: "AKIA",
  secret_access_key: "secret",
  ...over,
});

describe("objectUrl", () => {
  it("addresses the bucket virtual-hosted by default, path style when asked or when the host has no subdomain", () => {
    expect(objectUrl(target(), "p/task_1/0.png")).toBe("https://my-bucket.s3.eu-west-1.amazonaws.com/p/task_1/0.png");
    expect(objectUrl(target({ path_style: true }), "p/0.png")).toBe("https://s3.eu-west-1.amazonaws.com/my-bucket/p/0.png");
    expect(objectUrl(target({ endpoint: "http://127.0.0.1:9000" }), "a.png")).toBe("http://127.0.0.1:9000/my-bucket/a.png");
    expect(objectUrl(target({ endpoint: "http://localhost:9000" }), "a.png")).toBe("http://localhost:9000/my-bucket/a.png");
    // Each segment of the key is encoded once; the slashes stay.
    expect(objectUrl(target({ path_style: true }), "a b/c+d.png")).toBe(
      "https://s3.eu-west-1.amazonaws.com/my-bucket/a%20b/c%2Bd.png",
    );
  });
});

describe("putObject and deleteObject", () => {
  it("streams a body of known length as UNSIGNED-PAYLOAD, and the store keeps every byte", async () => {
    const b = await newBucket();
    const t = target({ ...b, endpoint: env.FAKE_S3_URL, path_style: true });
    const bytes = new Uint8Array(200_000);
    for (let i = 0; i < bytes.length; i += 65_536) crypto.getRandomValues(bytes.subarray(i, i + 65_536));
    const stream = new Blob([bytes]).stream();
    const put = await putObject(t, "big/out.bin", { stream, bytes: bytes.length }, "application/octet-stream");
    expect(put).toMatchObject({ ok: true, etag: expect.stringMatching(/^"[0-9a-f]{32}"$/) });
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
      .map((x) => x.toString(16).padStart(2, "0"))
      .join("");
    expect(await objectsIn(b)).toEqual([expect.objectContaining({ key: "big/out.bin", bytes: bytes.length, sha256: digest })]);
    expect((await requestsTo(b))[0]?.content_sha256).toBe("UNSIGNED-PAYLOAD");
    expect(await deleteObject(t, "big/out.bin")).toEqual({ ok: true, etag: null });
    expect(await objectsIn(b)).toEqual([]);
  });

  it("reports the store's code and message, whether it is worth trying again, and an unreachable store", async () => {
    const b = await newBucket();
    const refused = await putObject(
      target({ ...b, endpoint: env.FAKE_S3_URL, bucket: "nope-bucket" }),
      "k",
      new Uint8Array([1]),
      "text/plain",
    );
    expect(refused).toMatchObject({ ok: false, status: 404, code: "NoSuchBucket", retryable: false });
    const down = await putObject(target({ ...b, endpoint: "http://127.0.0.1:9" }), "k", new Uint8Array([1]), "text/plain");
    expect(down).toMatchObject({
      ok: false,
      status: null,
      code: "connection_refused",
      cause: "connection_refused",
      retryable: true,
    });
  });
});
