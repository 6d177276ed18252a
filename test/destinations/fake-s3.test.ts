/**
 * The fake S3 store itself, driven with aws4fetch as any SigV4 client would: what it accepts and
 * what it refuses must be what S3 does, or the delivery tests prove nothing.
 */

import { env } from "cloudflare:workers";
import { AwsClient } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { denyWrites, type FakeBucket, failNext, newBucket, objectsIn } from "./s3";

const hex = async (data: Uint8Array) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", data))].map((b) => b.toString(16).padStart(2, "0")).join("");

function client(b: FakeBucket, secret = b.secret_access_key, region = b.region) {
  return new AwsClient({ accessKeyId: b.access_key_id, secretAccessKey: secret, service: "s3", region, retries: 0 });
}

async function put(b: FakeBucket, key: string, body: Uint8Array, opts: { secret?: string; region?: string; hash?: string } = {}) {
  const res = await client(b, opts.secret, opts.region).fetch(
    `${env.FAKE_S3_URL}/${b.bucket}/${key.split("/").map(encodeURIComponent).join("/")}`,
    {
      method: "PUT",
      body,
      headers: { "Content-Type": "image/png", "X-Amz-Content-Sha256": opts.hash ?? (await hex(body)) },
    },
  );
  return { status: res.status, etag: res.headers.get("ETag"), text: await res.text(), type: res.headers.get("Content-Type") };
}

const code = (xml: string) => /<Code>([^<]+)<\/Code>/.exec(xml)?.[1];
const bytes = new TextEncoder().encode("hello, bucket");

describe("the fake S3 store", () => {
  it("stores a correctly signed PutObject with its MD5 ETag, and deletes it", async () => {
    const b = await newBucket("eu-west-1");
    const res = await put(b, "out/a b+c.png", bytes);
    expect(res.status, res.text).toBe(200);
    expect(res.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await objectsIn(b)).toEqual([
      { key: "out/a b+c.png", bytes: bytes.length, etag: res.etag, content_type: "image/png", sha256: await hex(bytes) },
    ]);
    const del = await client(b).fetch(`${env.FAKE_S3_URL}/${b.bucket}/out/a%20b%2Bc.png`, {
      method: "DELETE",
      headers: { "X-Amz-Content-Sha256": await hex(new Uint8Array()) },
    });
    expect(del.status).toBe(204);
    expect(await objectsIn(b)).toEqual([]);
  });

  it("answers S3's XML errors for a wrong secret, region, payload hash, key or bucket", async () => {
    const b = await newBucket();
    const other = await newBucket();
    const wrongSecret = await put(b, "k", bytes, { secret: "x".repeat(40) });
    expect([wrongSecret.status, code(wrongSecret.text), wrongSecret.type]).toEqual([
      403,
      "SignatureDoesNotMatch",
      "application/xml",
    ]);
    const wrongRegion = await put(b, "k", bytes, { region: "ap-south-1" });
    expect([wrongRegion.status, code(wrongRegion.text)]).toEqual([400, "AuthorizationHeaderMalformed"]);
    // A signed hash of other bytes: the signature is right, the payload is not what was signed.
    const tampered = await put(b, "k", bytes, { hash: await hex(new Uint8Array([1, 2, 3])) });
    expect([tampered.status, code(tampered.text)]).toEqual([400, "XAmzContentSHA256Mismatch"]);
    const unknownKey = await put({ ...b, access_key_id: "AKIANOSUCHKEY0000000" }, "k", bytes);
    expect([unknownKey.status, code(unknownKey.text)]).toEqual([403, "InvalidAccessKeyId"]);
    const noBucket = await put({ ...b, bucket: "no-such-bucket" }, "k", bytes);
    expect([noBucket.status, code(noBucket.text)]).toEqual([404, "NoSuchBucket"]);
    const notYours = await put({ ...b, bucket: other.bucket }, "k", bytes);
    expect([notYours.status, code(notYours.text)]).toEqual([403, "AccessDenied"]);
    const unsigned = await fetch(`${env.FAKE_S3_URL}/${b.bucket}/k`, { method: "PUT", body: bytes });
    expect([unsigned.status, code(await unsigned.text())]).toEqual([403, "AccessDenied"]);
    expect(await objectsIn(b)).toEqual([]);
  });

  it("accepts UNSIGNED-PAYLOAD, as S3 does", async () => {
    const b = await newBucket();
    expect((await put(b, "u", bytes, { hash: "UNSIGNED-PAYLOAD" })).status).toBe(200);
  });

  it("fails the next N requests with SlowDown or InternalError, then serves; a deny policy refuses writes", async () => {
    const b = await newBucket();
    await failNext(b, 2, 503);
    const first = await put(b, "k", bytes);
    expect([first.status, code(first.text)]).toEqual([503, "SlowDown"]);
    expect((await put(b, "k", bytes)).status).toBe(503);
    expect((await put(b, "k", bytes)).status).toBe(200);
    await failNext(b, 1, 500);
    expect(code((await put(b, "k", bytes)).text)).toBe("InternalError");
    await denyWrites(b);
    const denied = await put(b, "k2", bytes);
    expect([denied.status, code(denied.text)]).toEqual([403, "AccessDenied"]);
  });
});
