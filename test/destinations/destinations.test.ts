/**
 * Storage destinations through the API: a `storage:manage` key adds the tenant's own bucket
 * (verified by a probe object written and deleted, with the bucket's reason when it refuses),
 * lists, makes default and deletes them; the key pair is sealed at rest and never shown again.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountFor } from "../../src/accounts/account-stub";
import { unseal } from "../../src/lib/sealed";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { denyWrites, destinationBody, failNext, newBucket, objectsIn, requestsTo } from "./s3";

const manager = () => newTenant({ permissions: ["tasks:read", "tasks:write", "storage:manage"] });
const create = (t: TestTenant, body: Record<string, unknown>) => call("/v1/storage-destinations", { key: t.api_key, body });
const destination = (t: TestTenant, id: string, method = "GET", body?: unknown) =>
  call(`/v1/storage-destinations/${id}`, { key: t.api_key, method, body });

describe("POST /v1/storage-destinations", () => {
  it("verifies the bucket with a probe object, written then deleted, and keeps only the key pair's last 4", async () => {
    const t = await manager();
    const b = await newBucket("eu-west-1");
    const res = await create(t, destinationBody(b, { prefix: "/gateway/out/" }));
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toEqual({
      object: "storage_destination",
      destination_id: expect.stringMatching(/^dst_/),
      endpoint: env.FAKE_S3_URL,
      bucket: b.bucket,
      region: "eu-west-1",
      prefix: "gateway/out",
      path_style: true,
      default: false,
      access_key_id_last4: b.access_key_id.slice(-4),
      secret_access_key_last4: b.secret_access_key.slice(-4),
      verified_at: expect.any(String),
      created_at: expect.any(String),
    });
    // The probe: one signed write under the prefix (its payload hash signed), then its delete; nothing left.
    const requests = await requestsTo(b);
    expect(requests.map((r) => [r.method, r.status])).toEqual([
      ["PUT", 200],
      ["DELETE", 204],
    ]);
    expect(requests[0]?.key).toMatch(/^gateway\/out\/\.gateway-probe-/);
    expect(requests[0]?.content_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await objectsIn(b)).toEqual([]);
    for (const read of [
      await destination(t, res.json.destination_id),
      await call("/v1/storage-destinations", { key: t.api_key }),
    ]) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(b.secret_access_key);
      expect(read.text).not.toContain(b.access_key_id);
    }
  });

  it("keeps the key pair sealed at rest, bound to the destination", async () => {
    const t = await manager();
    const b = await newBucket();
    const res = await create(t, destinationBody(b));
    const stored = await runInDurableObject(accountFor(env, t.tenant_id) as DurableObjectStub<AccountObject>, (_o, state) =>
      state.storage.sql
        .exec<Record<string, string>>("SELECT * FROM storage_destinations WHERE destination_id = ?", res.json.destination_id)
        .one(),
    );
    const row = JSON.stringify(stored);
    expect(row).not.toContain(b.secret_access_key);
    expect(row).not.toContain(b.access_key_id);
    const opened = JSON.parse(
      await unseal(env.STORAGE_ENCRYPTION_KEY, stored.credentials_sealed as string, res.json.destination_id),
    );
    expect(opened).toEqual({ access_key_id: b.access_key_id, secret_access_key: b.secret_access_key });
    await expect(unseal(env.STORAGE_ENCRYPTION_KEY, stored.credentials_sealed as string, "dst_other")).rejects.toThrow();
  });

  it("refuses with 422 naming the bucket's reason when the probe is refused, and stores nothing", async () => {
    const t = await manager();
    const b = await newBucket("eu-west-1");
    const cases: [Record<string, unknown>, string, string][] = [
      [{ secret_access_key: "wrong-secret-0000000000000000000000000000" }, "SignatureDoesNotMatch", "/secret_access_key"],
      [{ access_key_id: "AKIAUNKNOWN000000000" }, "InvalidAccessKeyId", "/access_key_id"],
      [{ bucket: "no-such-bucket-here" }, "NoSuchBucket", "/bucket"],
      [{ region: "us-west-2" }, "AuthorizationHeaderMalformed", "/region"],
    ];
    for (const [change, code, param] of cases) {
      const e = expectError(await create(t, destinationBody(b, change)), 422, "invalid_request", param);
      expect(e.message).toContain(code);
      expect(e.details).toMatchObject({ reason: "destination_verification_failed", step: "write", bucket_error: { code } });
      expect(JSON.stringify(e)).not.toContain(b.secret_access_key);
    }
    await denyWrites(b);
    const denied = expectError(await create(t, destinationBody(b)), 422, "invalid_request");
    expect(denied.details.bucket_error).toMatchObject({ code: "AccessDenied", http_status: 403 });
    await denyWrites(b, false);
    // The store's own failure is not the request's fault: retryable, as every outside service's is.
    await failNext(b, 1, 503);
    const slow = expectError(await create(t, destinationBody(b)), 503, "model_unavailable");
    expect(slow.details).toMatchObject({ cause: "http_503", bucket_error: { code: "SlowDown", http_status: 503 } });
    // Nothing reached the service's side: the list is empty.
    expect((await call("/v1/storage-destinations", { key: t.api_key })).json.data).toEqual([]);
    // A store that is not there at all.
    const gone = expectError(
      await create(t, destinationBody(b, { endpoint: "http://127.0.0.1:9" })),
      503,
      "model_unavailable",
      "/endpoint",
    );
    expect(gone.details).toMatchObject({ cause: "connection_refused", bucket_error: { code: "connection_refused" } });
    expect(gone.message).toBe(
      "The bucket could not be reached for the probe object's write: 127.0.0.1:9 refused the connection (connection_refused).",
    );
  });

  it("holds the endpoint to the outside-URL policy and the fields to their shapes", async () => {
    const t = await manager();
    const b = await newBucket();
    for (const endpoint of ["http://s3.example.com", "https://10.0.0.5", "https://metadata.google.internal", "nope"]) {
      expectError(await create(t, destinationBody(b, { endpoint })), 422, "invalid_request", "/endpoint");
    }
    expectError(
      await create(t, destinationBody(b, { endpoint: `${env.FAKE_S3_URL}/some/path` })),
      422,
      "invalid_request",
      "/endpoint",
    );
    expectError(await create(t, destinationBody(b, { bucket: "Bad_Bucket!" })), 422, "invalid_request", "/bucket");
    expectError(await create(t, destinationBody(b, { region: "" })), 422, "invalid_request", "/region");
    expectError(await create(t, destinationBody(b, { prefix: "a/../b" })), 422, "invalid_request", "/prefix");
    expectError(await create(t, destinationBody(b, { secret_access_key: "" })), 422, "invalid_request", "/secret_access_key");
    expectError(await create(t, destinationBody(b, { extra: 1 })), 422, "invalid_request");
    const { access_key_id: _, ...missing } = destinationBody(b);
    expectError(await create(t, missing), 422, "invalid_request", "/access_key_id");
    expect(await requestsTo(b)).toEqual([]);
  });
});

describe("GET, PATCH, DELETE /v1/storage-destinations", () => {
  it("lists oldest first, keeps one default, and deletes", async () => {
    const t = await manager();
    const a = await create(t, destinationBody(await newBucket(), { default: true }));
    const b = await create(t, destinationBody(await newBucket()));
    expect(a.json.default).toBe(true);
    const list = await call("/v1/storage-destinations", { key: t.api_key });
    expect(list.json).toMatchObject({ object: "list", has_more: false });
    expect(list.json.data.map((d: any) => [d.destination_id, d.default])).toEqual([
      [a.json.destination_id, true],
      [b.json.destination_id, false],
    ]);
    const moved = await destination(t, b.json.destination_id, "PATCH", { default: true });
    expect(moved.status).toBe(200);
    expect(moved.json.default).toBe(true);
    expect((await destination(t, a.json.destination_id)).json.default).toBe(false);
    expectError(await destination(t, b.json.destination_id, "PATCH", { default: "yes" }), 422, "invalid_request", "/default");
    const del = await destination(t, b.json.destination_id, "DELETE");
    expect(del.json).toEqual({ object: "storage_destination", destination_id: b.json.destination_id, deleted: true });
    expectError(await destination(t, b.json.destination_id), 404, "not_found");
    expectError(await destination(t, b.json.destination_id, "DELETE"), 404, "not_found");
    expect((await call("/v1/storage-destinations", { key: t.api_key })).json.data.map((d: any) => d.destination_id)).toEqual([
      a.json.destination_id,
    ]);
  });

  it("never reaches another tenant's destination", async () => {
    const t = await manager();
    const other = await manager();
    const theirs = await create(other, destinationBody(await newBucket()));
    expectError(await destination(t, theirs.json.destination_id), 404, "not_found");
    expectError(await destination(t, theirs.json.destination_id, "DELETE"), 404, "not_found");
    expectError(await destination(t, theirs.json.destination_id, "PATCH", { default: true }), 404, "not_found");
    expect((await destination(other, theirs.json.destination_id)).status).toBe(200);
  });

  it("needs `storage:manage`", async () => {
    const t = await newTenant({ permissions: ["tasks:read", "tasks:write", "webhooks:manage"] });
    expectError(await call("/v1/storage-destinations", { key: t.api_key }), 403, "forbidden");
    expectError(await create(t, destinationBody(await newBucket())), 403, "forbidden");
    expectError(await destination(t, "dst_x", "DELETE"), 403, "forbidden");
    expectError(await call("/v1/storage-destinations", {}), 401, "unauthorized");
  });
});
