/**
 * Key modes never cross, for the tenant-wide resources too: with a test-mode key of a tenant that
 * also has a live key, every resource either refuses it (403, live-only resources) or shows it
 * only test-mode things (mode-scoped ones), and a live task's events and outputs never reach
 * anything that key made. Receivers and the fake bucket run on 127.0.0.1.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { destinationBody, newBucket, objectsIn, requestsTo } from "../destinations/s3";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, runAlarm, waitFor } from "../helpers/tasks";

const EVERY_PERMISSION = [
  "catalog:read",
  "tasks:read",
  "tasks:write",
  "chat",
  "keys:manage",
  "webhooks:manage",
  "providers:manage",
  "storage:manage",
];

let n = 0;
const hook = () => {
  const name = `modes-${Date.now()}-${++n}`;
  return { name, url: `${env.RECEIVER_URL}/hook/ok/${name}` };
};
const received = async (name: string): Promise<{ body: string }[]> =>
  (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json();

/** A tenant with a live key and a test-mode key, both holding every permission. */
async function twoModes(): Promise<{ live: TestTenant; test: TestTenant }> {
  const live = await newTenant({ credits: "10000", permissions: EVERY_PERMISSION });
  const k = await admin(`/admin/v1/tenants/${live.tenant_id}/api-keys`, { permissions: EVERY_PERMISSION, mode: "test" });
  expect(k.status, k.text).toBe(201);
  return { live, test: { tenant_id: live.tenant_id, api_key: k.json.api_key, key_id: k.json.key_id } };
}

async function newEndpoint(t: TestTenant, url: string) {
  const res = await call("/v1/webhook-endpoints", { key: t.api_key, body: { url, events: ["*"] } });
  expect(res.status, res.text).toBe(201);
  return res.json as { endpoint_id: string; mode: string; secret: string };
}

/** Runs the task's alarm until the receiver has `count` deliveries (or gives up, answering what it has). */
async function deliveredTo(name: string, taskId: string, count: number) {
  for (let i = 0; i < 100; i++) {
    const got = await received(name);
    if (got.length >= count) return got;
    await runAlarm(taskId).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
  }
  return received(name);
}

async function succeededTask(t: TestTenant, body: Record<string, unknown> = {}) {
  const created = await createImage(t, { prompt: "a lighthouse at dusk", ...body });
  expect(created.status, created.text).toBe(202);
  const done = await waitFor(t, created.json.task_id);
  expect(done.status).toBe("succeeded");
  return done;
}

describe("webhook endpoints are mode-scoped", () => {
  let live: TestTenant;
  let test: TestTenant;
  beforeAll(async () => {
    ({ live, test } = await twoModes());
  });

  it("a test key makes test endpoints and sees only them; a live endpoint is unknown to it, and the other way round", async () => {
    const liveUrl = hook().url;
    const liveEndpoint = await newEndpoint(live, liveUrl);
    const testEndpoint = await newEndpoint(test, hook().url);
    expect(liveEndpoint.mode).toBe("live");
    expect(testEndpoint.mode).toBe("test");

    const testList = await call("/v1/webhook-endpoints", { key: test.api_key });
    expect(testList.json.data.map((e: any) => e.endpoint_id)).toEqual([testEndpoint.endpoint_id]);
    const liveList = await call("/v1/webhook-endpoints", { key: live.api_key });
    expect(liveList.json.data.map((e: any) => e.endpoint_id)).toEqual([liveEndpoint.endpoint_id]);

    const path = `/v1/webhook-endpoints/${liveEndpoint.endpoint_id}`;
    const attempts = [
      call(path, { key: test.api_key }),
      call(path, { key: test.api_key, method: "PATCH", body: { url: hook().url } }),
      call(`${path}/recover`, { key: test.api_key, body: { since: new Date(Date.now() - 60_000).toISOString() } }),
      call(`${path}/rotate-secret`, { key: test.api_key, body: {} }),
      call(`${path}/test`, { key: test.api_key, method: "POST" }),
      call(path, { key: test.api_key, method: "DELETE" }),
    ];
    for (const res of await Promise.all(attempts)) expectError(res, 404, "not_found");
    expectError(await call(`/v1/webhook-endpoints/${testEndpoint.endpoint_id}`, { key: live.api_key }), 404, "not_found");

    // Nothing of the live endpoint moved.
    const after = await call(path, { key: live.api_key });
    expect(after.status).toBe(200);
    expect(after.json).toMatchObject({ url: liveUrl, enabled: true, secret_rotated_at: null });
  });

  it("a live task's events reach live endpoints only and a test task's test ones; a live task's deliveries are unknown to a test key", async () => {
    const { live, test } = await twoModes();
    const liveHook = hook();
    const testHook = hook();
    await newEndpoint(live, liveHook.url);
    await newEndpoint(test, testHook.url);

    const liveTask = await succeededTask(live, { prompt: "a live secret prompt", metadata: { order: "live-1" } });
    const testTask = await succeededTask(test, { prompt: "a test prompt" });
    const toLive = await deliveredTo(liveHook.name, liveTask.task_id, 1);
    const toTest = await deliveredTo(testHook.name, testTask.task_id, 1);
    // Each task's end reached its own mode's endpoint, and once only.
    expect(toLive.map((d) => JSON.parse(d.body).data.task_id)).toEqual([liveTask.task_id]);
    expect(toTest.map((d) => JSON.parse(d.body).data.task_id)).toEqual([testTask.task_id]);
    expect(JSON.stringify(await received(testHook.name))).not.toContain("a live secret prompt");

    // The live task's deliveries, as the live key lists them.
    const liveRows = await call(`/v1/webhook-deliveries?task_id=${liveTask.task_id}`, { key: live.api_key });
    expect(liveRows.status).toBe(200);
    expect(liveRows.json.data.length).toBeGreaterThan(0);
    const liveDelivery = liveRows.json.data[0].delivery_id;

    // The test key: an empty list for the live task, none of its rows in the whole log, 404 on read and resend.
    const filtered = await call(`/v1/webhook-deliveries?task_id=${liveTask.task_id}`, { key: test.api_key });
    expect(filtered.status).toBe(200);
    expect(filtered.json.data).toEqual([]);
    const all = await call("/v1/webhook-deliveries?limit=100", { key: test.api_key });
    expect(all.status).toBe(200);
    expect(all.json.data.length).toBeGreaterThan(0);
    expect(all.json.data.every((d: any) => d.task_id === testTask.task_id)).toBe(true);
    expectError(await call(`/v1/webhook-deliveries/${liveDelivery}`, { key: test.api_key }), 404, "not_found");
    expectError(
      await call(`/v1/webhook-deliveries/${liveDelivery}/resend`, { key: test.api_key, method: "POST" }),
      404,
      "not_found",
    );
    // Nothing more went to the live endpoint from that resend.
    expect(await received(liveHook.name)).toHaveLength(1);

    // The live key sees no test task's delivery either.
    const liveAll = await call("/v1/webhook-deliveries?limit=100", { key: live.api_key });
    expect(liveAll.json.data.some((d: any) => d.task_id === testTask.task_id)).toBe(false);
  });
});

describe("provider keys and storage destinations are live-only", () => {
  it("a test key gets 403 forbidden on every provider-key route, reads included, and nothing is stored", async () => {
    const { live, test } = await twoModes();
    const refused = [
      await call("/v1/provider-keys/openai", {
        key: test.api_key,
        method: "PUT",
        body: { api_key: "sk-attacker-0123456789", base_url: `${env.RECEIVER_URL}/hook/ok/byok`, mode: "only" },
      }),
      await call("/v1/provider-keys/openai", { key: test.api_key, method: "PUT", body: { mode: "only" } }),
      await call("/v1/provider-keys", { key: test.api_key }),
      await call("/v1/provider-keys/openai", { key: test.api_key, method: "DELETE" }),
    ];
    for (const res of refused) {
      const e = expectError(res, 403, "forbidden");
      expect(e.message).toMatch(/test-mode keys cannot manage live resources/i);
      expect(e.message).toMatch(/live key/i);
    }
    const stored = await call("/v1/provider-keys", { key: live.api_key });
    expect(stored.status).toBe(200);
    expect(stored.json.data).toEqual([]);
  });

  it("a test key gets 403 forbidden on every storage-destination route; its bucket is never called", async () => {
    const { live, test } = await twoModes();
    const liveBucket = await newBucket();
    const made = await call("/v1/storage-destinations", { key: live.api_key, body: destinationBody(liveBucket) });
    expect(made.status, made.text).toBe(201);
    const dst = made.json.destination_id;

    const attackerBucket = await newBucket();
    const refused = [
      await call("/v1/storage-destinations", { key: test.api_key, body: destinationBody(attackerBucket, { default: true }) }),
      await call("/v1/storage-destinations", { key: test.api_key }),
      await call(`/v1/storage-destinations/${dst}`, { key: test.api_key }),
      await call(`/v1/storage-destinations/${dst}`, { key: test.api_key, method: "PATCH", body: { default: true } }),
      await call(`/v1/storage-destinations/${dst}`, { key: test.api_key, method: "DELETE" }),
    ];
    for (const res of refused) {
      const e = expectError(res, 403, "forbidden");
      expect(e.message).toMatch(/test-mode keys cannot manage live resources/i);
    }
    expect(await requestsTo(attackerBucket)).toEqual([]);
    const list = await call("/v1/storage-destinations", { key: live.api_key });
    expect(list.json.data.map((d: any) => [d.destination_id, d.default])).toEqual([[dst, false]]);

    // A test create naming the live destination is refused before anything starts.
    const named = await createImage(test, { prompt: "to their bucket", output_destination_id: dst });
    expectError(named, 403, "forbidden", "/output_destination_id");
    // And a test task's outputs are never "delivered again" to it.
    const testTask = await succeededTask(test);
    expectError(
      await call(`/v1/tasks/${testTask.task_id}/deliveries`, { key: test.api_key, body: { destination_id: dst } }),
      403,
      "forbidden",
    );
    expect(await objectsIn(liveBucket)).toEqual([]);
  });

  it("a test task never writes to the tenant's default destination; a live task does", async () => {
    const { live, test } = await twoModes();
    const bucket = await newBucket();
    const made = await call("/v1/storage-destinations", { key: live.api_key, body: destinationBody(bucket, { default: true }) });
    expect(made.status, made.text).toBe(201);

    const testTask = await succeededTask(test);
    expect(testTask).not.toHaveProperty("delivery");
    expect(await objectsIn(bucket)).toEqual([]);

    const liveTask = await succeededTask(live);
    expect(liveTask.delivery).toMatchObject({ destination_id: made.json.destination_id });
  });
});

describe("the other tenant-wide resources", () => {
  it("answer a test key in its own mode, or refuse it", async () => {
    const { live, test } = await twoModes();
    const balance = await call("/v1/balance", { key: test.api_key });
    expect(balance.json.mode).toBe("test");
    const usage = await call("/v1/usage", { key: test.api_key });
    expect(usage.json.mode).toBe("test");
    const keys = await call("/v1/keys", { key: test.api_key });
    expect(keys.status).toBe(200);
    expect(keys.json.data.map((k: any) => k.mode)).toEqual(["test"]);
    expectError(await call(`/v1/keys/${live.key_id}`, { key: test.api_key }), 404, "not_found");
    expectError(await call("/v1/credits/checkout", { key: test.api_key, body: { credits: "100" } }), 403, "forbidden");
    const batches = await call("/v1/batches", { key: test.api_key });
    expect(batches.status).toBe(200);
  });
});
