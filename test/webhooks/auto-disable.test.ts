/**
 * An endpoint whose every delivery has failed for 5 days is disabled: `endpoint.disabled` is
 * recorded and delivered to the endpoints subscribed to it (signed, in the log), the tenant's
 * owners are mailed, and enabling it again starts over. A success ends a failure streak.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountFor } from "../../src/accounts/account-stub";
import { admin, call, type TestTenant } from "../helpers/api";
import { createImage, taskStub, waitFor } from "../helpers/tasks";

let n = 0;
const hook = (mode: string, query = "") => {
  const name = `d${Date.now()}-${++n}`;
  return { name, url: `${env.RECEIVER_URL}/hook/${mode}/${name}${query}` };
};
const received = async (name: string): Promise<{ headers: Record<string, string>; body: string }[]> =>
  (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json();

async function tenantWithOwner(email: string): Promise<TestTenant> {
  const t = await admin("/admin/v1/tenants", { name: "hooks tenant", credits: "10000", owner_email: email });
  expect(t.status, t.text).toBe(201);
  const k = await admin(`/admin/v1/tenants/${t.json.tenant_id}/api-keys`, {
    permissions: ["tasks:read", "tasks:write", "webhooks:manage"],
  });
  return { tenant_id: t.json.tenant_id, api_key: k.json.api_key, key_id: k.json.key_id };
}

async function newEndpoint(t: TestTenant, url: string, events: string[]) {
  const res = await call("/v1/webhook-endpoints", { key: t.api_key, body: { url, events } });
  expect(res.status, res.text).toBe(201);
  return res.json as { endpoint_id: string; secret: string };
}

const endpointOf = async (t: TestTenant, id: string) => (await call(`/v1/webhook-endpoints/${id}`, { key: t.api_key })).json;

async function setFailingSince(t: TestTenant, endpointId: string, at: string) {
  await runInDurableObject(accountFor(env, t.tenant_id) as DurableObjectStub<AccountObject>, (_o, state) => {
    state.storage.sql.exec("UPDATE webhook_endpoints SET failing_since = ? WHERE endpoint_id = ?", at, endpointId);
  });
}

/** The task's delivery to `endpointId` once no attempt is under way. */
async function deliveryTo(taskId: string, endpointId: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    let row: any;
    await runInDurableObject(taskStub(taskId), (_o, state) => {
      row = state.storage.sql.exec("SELECT * FROM webhook_deliveries WHERE endpoint_id = ?", endpointId).toArray()[0];
    });
    if (row && row.status !== "delivering" && !(row.status === "pending" && row.next_attempt_at <= Date.now())) return row;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("delivery still under way");
}

/** Makes the task's remaining attempts to `endpointId`, each at its due time on the task's injected clock. */
async function runSchedule(taskId: string, endpointId: string) {
  for (let i = 0; i < 8; i++) {
    const d = await deliveryTo(taskId, endpointId);
    if (d.status !== "pending") return d;
    await runInDurableObject(taskStub(taskId), (obj) => {
      (obj as unknown as { runner: { clock: () => number } }).runner.clock = () => d.next_attempt_at;
    });
    await runDurableObjectAlarm(taskStub(taskId));
  }
  return deliveryTo(taskId, endpointId);
}

describe("auto-disable", () => {
  it("disables an endpoint failing for 5 days, delivers endpoint.disabled and mails the owners", async () => {
    const email = `owner-${Date.now()}@example.com`;
    const t = await tenantWithOwner(email);
    const dead = await newEndpoint(t, hook("fail", "?times=1000").url, ["task.succeeded"]);
    const watcher = hook("ok");
    const watching = await newEndpoint(t, watcher.url, ["endpoint.disabled"]);
    const since = new Date(Date.now() - 6 * 86_400_000).toISOString();
    await setFailingSince(t, dead.endpoint_id, since);

    const id = (await createImage(t, { prompt: "into the void" })).json.task_id;
    await waitFor(t, id);
    // Still enabled while its delivery is being retried: only a delivery's end counts.
    expect((await endpointOf(t, dead.endpoint_id)).enabled).toBe(true);
    const d = await runSchedule(id, dead.endpoint_id);
    expect(d).toMatchObject({ status: "failed", attempt_count: 8 });

    await expect.poll(async () => (await endpointOf(t, dead.endpoint_id)).enabled).toBe(false);
    expect(await endpointOf(t, dead.endpoint_id)).toMatchObject({ disabled_reason: "failing", failing_since: since });

    await runDurableObjectAlarm(env.ACCOUNTS.getByName(t.tenant_id));
    await expect.poll(async () => (await received(watcher.name)).length).toBe(1);
    const [got] = await received(watcher.name);
    const payload = new Webhook(watching.secret).verify(got!.body, {
      "webhook-id": got!.headers["webhook-id"] as string,
      "webhook-timestamp": got!.headers["webhook-timestamp"] as string,
      "webhook-signature": got!.headers["webhook-signature"] as string,
    }) as any;
    expect(payload).toMatchObject({
      type: "endpoint.disabled",
      data: { object: "webhook_endpoint", endpoint_id: dead.endpoint_id, enabled: false, disabled_reason: "failing" },
    });

    // In the log, as the account's own delivery (no task), with its attempt.
    const log = await call(`/v1/webhook-deliveries?endpoint_id=${watching.endpoint_id}`, { key: t.api_key });
    expect(log.json.data).toMatchObject([
      { task_id: null, event_type: "endpoint.disabled", event_id: got!.headers["webhook-id"] },
    ]);
    await expect
      .poll(async () => (await call(`/v1/webhook-deliveries/${log.json.data[0].delivery_id}`, { key: t.api_key })).json.status)
      .toBe("succeeded");
    const detail = await call(`/v1/webhook-deliveries/${log.json.data[0].delivery_id}`, { key: t.api_key });
    expect(detail.json.attempts).toMatchObject([{ attempt: 1, http_status: 200 }]);

    const mails = async () =>
      (await admin(`/admin/v1/outbox?to=${encodeURIComponent(email)}`)).json.data.filter((m: any) =>
        m.subject.includes("was disabled"),
      );
    await expect.poll(async () => (await mails()).length).toBe(1);

    // Enabled again: the reason and the streak start over.
    const on = await call(`/v1/webhook-endpoints/${dead.endpoint_id}`, {
      key: t.api_key,
      method: "PATCH",
      body: { enabled: true },
    });
    expect(on.json).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  });

  it("a delivery's failure starts the streak; a success ends it", async () => {
    const t = await tenantWithOwner(`owner-${Date.now()}-b@example.com`);
    const flaky = await newEndpoint(t, hook("fail", "?times=8").url, ["task.succeeded"]);
    const id = (await createImage(t, { prompt: "first" })).json.task_id;
    await waitFor(t, id);
    const d = await runSchedule(id, flaky.endpoint_id);
    expect(d.status).toBe("failed");
    await expect.poll(async () => (await endpointOf(t, flaky.endpoint_id)).failing_since).toBe(d.created_at);
    expect((await endpointOf(t, flaky.endpoint_id)).enabled).toBe(true);
    // The receiver answers now: the next delivery succeeds and the streak ends.
    const next = (await createImage(t, { prompt: "second" })).json.task_id;
    await waitFor(t, next);
    expect((await deliveryTo(next, flaky.endpoint_id)).status).toBe("succeeded");
    await expect.poll(async () => (await endpointOf(t, flaky.endpoint_id)).failing_since).toBeNull();
  });
});
