/**
 * Delivery of outputs to a tenant's bucket, through the public API against the fake S3 store:
 * every output written to `<prefix>/<task_id>/<index>.<ext>` before the task shows success,
 * retried with backoff while the bucket fails, and after the retries the task still succeeds
 * (charged its usage, the service-hosted copies kept) with the warning `output_delivery_failed`,
 * which "deliver again" clears.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DELIVERY_ATTEMPTS } from "../../src/destinations/delivery";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, expectLedgerBalanced, fastForward, getTask, taskEvents, taskStub, waitFor } from "../helpers/tasks";
import { denyWrites, destinationBody, type FakeBucket, failNext, newBucket, objectsIn, requestsTo } from "./s3";

const tenant = () => newTenant({ permissions: ["tasks:read", "tasks:write", "storage:manage"] });

async function destinationFor(t: TestTenant, b: FakeBucket, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call("/v1/storage-destinations", { key: t.api_key, body: destinationBody(b, extra) });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.destination_id;
}

const hex = async (data: Uint8Array) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", data))].map((x) => x.toString(16).padStart(2, "0")).join("");

/** The stored record's delivery and step, as the task object holds them. */
async function recordOf(taskId: string): Promise<any> {
  return runInDurableObject(taskStub(taskId), (_o, state) =>
    JSON.parse(state.storage.sql.exec<{ record: string }>("SELECT record FROM task WHERE id = 1").one().record),
  );
}

/** Drives the task's alarm past each backoff until it ends (the waits themselves are proven apart). */
async function settle(t: TestTenant, taskId: string): Promise<any> {
  for (let i = 0; i < 20; i++) {
    const res = await getTask(t, taskId);
    if (["succeeded", "failed", "canceled"].includes(res.json.status)) return res.json;
    await fastForward(taskId);
  }
  throw new Error(`task ${taskId} did not end`);
}

describe("delivery to a storage destination", () => {
  it("writes every output under <prefix>/<task_id>/<index>.<ext> before the task succeeds", async () => {
    const t = await tenant();
    const b = await newBucket("eu-central-1");
    const dst = await destinationFor(t, b, { prefix: "gateway/out" });
    const created = await createImage(t, { prompt: "a lighthouse", count: 2, output_destination_id: dst });
    expect(created.status, JSON.stringify(created.json)).toBe(202);
    expect(created.json.delivery).toMatchObject({ destination_id: dst, status: "pending", attempt_count: 0 });
    const task = await waitFor(t, created.json.task_id);
    expect(task.status).toBe("succeeded");
    expect(task.warnings.map((w: any) => w.code)).not.toContain("output_delivery_failed");
    expect(task.delivery).toEqual({
      destination_id: dst,
      status: "delivered",
      attempt_count: 1,
      last_attempt_at: expect.any(String),
      failed: [],
    });
    const objects = await objectsIn(b);
    expect(task.output.artifacts).toHaveLength(2);
    for (const a of task.output.artifacts) {
      const key = `gateway/out/${task.task_id}/${a.index}.png`;
      const obj = objects.find((o) => o.key === key);
      expect(obj, key).toBeDefined();
      expect(a.delivered).toEqual([{ destination_id: dst, key, etag: obj?.etag.replaceAll('"', ""), bytes: a.bytes }]);
      // The bucket holds the same bytes the service hosts, with their type.
      const hosted = await call(`/v1/artifacts/${a.artifact_id}`, { key: t.api_key });
      expect(hosted.status).toBe(200);
      expect(obj).toMatchObject({ bytes: hosted.bytes.length, sha256: await hex(hosted.bytes), content_type: "image/png" });
    }
    // Each write signed its payload's hash (not UNSIGNED-PAYLOAD).
    const puts = (await requestsTo(b)).filter((r) => r.method === "PUT" && r.key.includes(task.task_id));
    expect(puts.every((r) => /^[0-9a-f]{64}$/.test(r.content_sha256 ?? ""))).toBe(true);
    // Delivered before the outcome was settled and shown.
    const kinds = (await taskEvents(task.task_id)).map((e) => e.kind);
    expect(kinds.indexOf("outputs_delivered")).toBeGreaterThan(kinds.indexOf("outputs_stored"));
    expect(kinds.indexOf("outputs_delivered")).toBeLessThan(
      kinds.lastIndexOf("capture") === -1 ? kinds.length : kinds.lastIndexOf("capture"),
    );
    // The destination's key pair appears nowhere in what the task shows.
    expect(JSON.stringify(task)).not.toContain(b.secret_access_key);
    expect(JSON.stringify(await taskEvents(task.task_id))).not.toContain(b.secret_access_key);
  });

  it("uses the tenant's default destination when a create names none", async () => {
    const t = await tenant();
    const b = await newBucket();
    const dst = await destinationFor(t, b, { default: true });
    const task = await waitFor(t, (await createImage(t, { prompt: "default bucket" })).json.task_id);
    expect(task.delivery).toMatchObject({ destination_id: dst, status: "delivered" });
    expect((await objectsIn(b)).map((o) => o.key)).toContain(`${task.task_id}/0.png`);
  });

  it("has no delivery when there is no destination", async () => {
    const t = await tenant();
    const task = await waitFor(t, (await createImage(t, { prompt: "nowhere" })).json.task_id);
    expect(task.status).toBe("succeeded");
    expect(task).not.toHaveProperty("delivery");
    expect(task.output.artifacts[0]).not.toHaveProperty("delivered");
  });

  it("refuses an unknown or another tenant's destination id with 422 naming the field", async () => {
    const t = await tenant();
    const other = await tenant();
    const theirs = await destinationFor(other, await newBucket());
    for (const id of ["dst_doesnotexist", theirs]) {
      expectError(
        await createImage(t, { prompt: "x", output_destination_id: id }),
        422,
        "invalid_request",
        "/output_destination_id",
      );
    }
    expectError(
      await createImage(t, { prompt: "x", output_destination_id: "" }),
      422,
      "invalid_request",
      "/output_destination_id",
    );
  });

  it("retries a failing bucket with backoff, and shows success only once the outputs are there", async () => {
    const t = await tenant();
    const b = await newBucket();
    const dst = await destinationFor(t, b);
    await failNext(b, 2, 503);
    const created = await createImage(t, { prompt: "slow bucket", output_destination_id: dst });
    const taskId = created.json.task_id;
    // The first attempt was refused: the task waits, still running, its next attempt a second away.
    const waiting = await waitFor(t, taskId, () => true);
    let rec = await recordOf(taskId);
    for (let i = 0; i < 50 && rec.delivery.attempt_count === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      rec = await recordOf(taskId);
    }
    expect(rec.step).toBe("deliver");
    expect(rec.delivery.attempt_count).toBe(1);
    expect(rec.delivery.items[0]).toMatchObject({ status: "pending", error: expect.stringContaining("SlowDown") });
    expect(rec.next_poll_at - Date.parse(rec.delivery.last_attempt_at)).toBe(1000);
    expect(waiting.status).not.toBe("succeeded");
    const running = await getTask(t, taskId);
    expect(running.json.status).toBe("running");
    expect(running.json.delivery).toMatchObject({ status: "pending", attempt_count: 1 });
    const task = await settle(t, taskId);
    expect(task.status).toBe("succeeded");
    expect(task.delivery).toMatchObject({ status: "delivered", attempt_count: 3, failed: [] });
    expect((await requestsTo(b)).filter((r) => r.key.startsWith(taskId)).map((r) => r.code)).toEqual([
      "SlowDown",
      "SlowDown",
      null,
    ]);
  });

  it("after the retries the task still succeeds, charged its usage, with output_delivery_failed; deliver again clears it", async () => {
    const t = await tenant();
    const b = await newBucket();
    const dst = await destinationFor(t, b);
    await failNext(b, 100, 500);
    const created = await createImage(t, { prompt: "broken bucket", output_destination_id: dst });
    const task = await settle(t, created.json.task_id);
    expect(task.status).toBe("succeeded");
    expect(task.billing.net_charged_credits).toBe(task.usage.credits);
    expect(Number(task.usage.credits)).toBeGreaterThan(0);
    const warning = task.warnings.find((w: any) => w.code === "output_delivery_failed");
    expect(warning).toMatchObject({ field: "/output_destination_id", message: expect.stringContaining(dst) });
    expect(task.delivery).toMatchObject({
      destination_id: dst,
      status: "failed",
      attempt_count: DELIVERY_ATTEMPTS,
      failed: [{ index: 0, key: `${task.task_id}/0.png`, error: expect.stringContaining("InternalError") }],
    });
    expect(task.output.artifacts[0].delivered).toEqual([]);
    // The service-hosted copy is there.
    expect((await call(`/v1/artifacts/${task.output.artifacts[0].artifact_id}`, { key: t.api_key })).status).toBe(200);
    await expectLedgerBalanced(t.tenant_id);

    // The bucket recovers: deliver again.
    await failNext(b, 0);
    const again = await call(`/v1/tasks/${task.task_id}/deliveries`, { key: t.api_key, method: "POST" });
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect(again.json.delivery).toMatchObject({ status: "delivered", attempt_count: DELIVERY_ATTEMPTS + 1, failed: [] });
    expect(again.json.warnings.map((w: any) => w.code)).not.toContain("output_delivery_failed");
    expect(again.json.output.artifacts[0].delivered).toEqual([expect.objectContaining({ key: `${task.task_id}/0.png` })]);
    expect((await getTask(t, task.task_id)).json.delivery.status).toBe("delivered");
    expect(again.json.billing).toEqual(task.billing);
    // Nothing left to send: another call writes nothing.
    const before = (await requestsTo(b)).length;
    expect((await call(`/v1/tasks/${task.task_id}/deliveries`, { key: t.api_key, method: "POST" })).status).toBe(200);
    expect((await requestsTo(b)).length).toBe(before);
  });

  it("does not retry what the bucket refuses for good (AccessDenied)", async () => {
    const t = await tenant();
    const b = await newBucket();
    const dst = await destinationFor(t, b);
    await denyWrites(b);
    const task = await settle(t, (await createImage(t, { prompt: "denied", output_destination_id: dst })).json.task_id);
    expect(task.status).toBe("succeeded");
    expect(task.delivery).toMatchObject({
      status: "failed",
      attempt_count: 1,
      failed: [{ error: expect.stringContaining("AccessDenied") }],
    });
  });

  it("a cancel while the outputs are being delivered changes nothing: the success was decided", async () => {
    const t = await tenant();
    const b = await newBucket();
    const dst = await destinationFor(t, b);
    await failNext(b, 1, 503);
    const taskId = (await createImage(t, { prompt: "cancel late", output_destination_id: dst })).json.task_id;
    await waitFor(t, taskId, (x) => x.delivery?.attempt_count === 1);
    expectError(await call(`/v1/tasks/${taskId}/cancel`, { key: t.api_key, body: {} }), 409, "conflict");
    const task = await settle(t, taskId);
    expect(task.status).toBe("succeeded");
    expect(task.delivery.status).toBe("delivered");
  });

  it("the deadline passing during delivery ends the retries, never the task (no model_timeout)", async () => {
    const t = await tenant();
    const b = await newBucket();
    const dst = await destinationFor(t, b);
    await failNext(b, 100, 503);
    const taskId = (await createImage(t, { prompt: "late bucket", output_destination_id: dst })).json.task_id;
    await waitFor(t, taskId, (x) => x.delivery?.attempt_count === 1);
    await fastForward(taskId, (rec) => {
      rec.deadline_at = new Date(Date.now() - 1000).toISOString();
    });
    const task = await settle(t, taskId);
    expect(task.status).toBe("succeeded");
    expect(task).not.toHaveProperty("error");
    expect(task.delivery).toMatchObject({ status: "failed", attempt_count: 2 });
    expect(task.warnings.map((w: any) => w.code)).toContain("output_delivery_failed");
  });

  it("a destination deleted before the delivery fails it, and the task still succeeds", async () => {
    const t = await tenant();
    const b = await newBucket();
    const dst = await destinationFor(t, b);
    await failNext(b, 1, 503);
    const taskId = (await createImage(t, { prompt: "deleted meanwhile", output_destination_id: dst })).json.task_id;
    await waitFor(t, taskId, (x) => x.delivery?.attempt_count === 1);
    expect((await call(`/v1/storage-destinations/${dst}`, { key: t.api_key, method: "DELETE" })).status).toBe(200);
    const task = await settle(t, taskId);
    expect(task.status).toBe("succeeded");
    expect(task.delivery.failed[0].error).toContain("no longer exists");
  });
});

describe("POST /v1/tasks/{task_id}/deliveries", () => {
  it("delivers a task made without a destination to one named, and to a second one beside the first", async () => {
    const t = await tenant();
    const first = await newBucket();
    const second = await newBucket();
    const a = await destinationFor(t, first);
    const b2 = await destinationFor(t, second, { prefix: "copies" });
    const task = await waitFor(t, (await createImage(t, { prompt: "later" })).json.task_id);
    expectError(
      await call(`/v1/tasks/${task.task_id}/deliveries`, { key: t.api_key, method: "POST" }),
      422,
      "invalid_request",
      "/destination_id",
    );
    const one = await call(`/v1/tasks/${task.task_id}/deliveries`, { key: t.api_key, body: { destination_id: a } });
    expect(one.status, JSON.stringify(one.json)).toBe(200);
    expect(one.json.delivery).toMatchObject({ destination_id: a, status: "delivered" });
    const two = await call(`/v1/tasks/${task.task_id}/deliveries`, { key: t.api_key, body: { destination_id: b2 } });
    expect(two.json.delivery).toMatchObject({ destination_id: b2, status: "delivered" });
    expect(two.json.output.artifacts[0].delivered.map((d: any) => [d.destination_id, d.key])).toEqual([
      [a, `${task.task_id}/0.png`],
      [b2, `copies/${task.task_id}/0.png`],
    ]);
    expect((await objectsIn(second)).map((o) => o.key)).toEqual([`copies/${task.task_id}/0.png`]);
  });

  it("answers 404 for another tenant's task, 409 for a task not succeeded, 422 for an unknown destination", async () => {
    const t = await tenant();
    const other = await tenant();
    const dst = await destinationFor(t, await newBucket());
    const task = await waitFor(t, (await createImage(t, { prompt: "mine" })).json.task_id);
    expectError(await call(`/v1/tasks/${task.task_id}/deliveries`, { key: other.api_key, body: {} }), 404, "task_not_found");
    expectError(
      await call(`/v1/tasks/${task.task_id}/deliveries`, { key: t.api_key, body: { destination_id: "dst_nope" } }),
      422,
      "invalid_request",
      "/destination_id",
    );
    expectError(
      await call(`/v1/tasks/${task.task_id}/deliveries`, { key: t.api_key, body: { other: 1 } }),
      422,
      "invalid_request",
    );
    const queued = await createImage(t, {
      prompt: "not yet",
      metadata: { sandbox_fault: "stay_queued" },
      output_destination_id: dst,
    });
    expect(queued.json.status).toBe("queued");
    expectError(await call(`/v1/tasks/${queued.json.task_id}/deliveries`, { key: t.api_key, method: "POST" }), 409, "conflict");
    const reader = await newTenant({ permissions: ["tasks:read"] });
    expectError(await call(`/v1/tasks/${task.task_id}/deliveries`, { key: reader.api_key, method: "POST" }), 403, "forbidden");
  });
});
