/**
 * Resend and recover: a delivery sent again now (same `webhook-id`, one more attempt), a task's
 * callback too; every delivery to an endpoint since a time that did not succeed sent again — those
 * that failed while it was disabled included — at most 7 days back. Receivers run on 127.0.0.1.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, taskStub, waitFor } from "../helpers/tasks";

let n = 0;
const hook = (mode: string, query = "") => {
  const name = `r${Date.now()}-${++n}`;
  return { name, url: `${env.RECEIVER_URL}/hook/${mode}/${name}${query}` };
};
const received = async (name: string): Promise<{ headers: Record<string, string>; body: string }[]> =>
  (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json();
const webhookTenant = () => newTenant({ credits: "10000", permissions: ["tasks:read", "tasks:write", "webhooks:manage"] });

async function newEndpoint(t: TestTenant, url: string, events: string[], enabled = true) {
  const res = await call("/v1/webhook-endpoints", { key: t.api_key, body: { url, events, enabled } });
  expect(res.status, res.text).toBe(201);
  return res.json as { endpoint_id: string; secret: string };
}

/** The task's log rows once `ready` holds. */
async function logOf(t: TestTenant, taskId: string, ready: (rows: any[]) => boolean) {
  for (let i = 0; i < 100; i++) {
    const res = await call(`/v1/webhook-deliveries?task_id=${taskId}`, { key: t.api_key });
    if (ready(res.json.data)) return res.json.data as any[];
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("the log did not reach the state expected");
}

const resend = (t: TestTenant, id: string) => call(`/v1/webhook-deliveries/${id}/resend`, { key: t.api_key, method: "POST" });
const recover = (t: TestTenant, endpointId: string, since: string) =>
  call(`/v1/webhook-endpoints/${endpointId}/recover`, { key: t.api_key, body: { since } });

describe("POST /v1/webhook-deliveries/{id}/resend", () => {
  it("sends a delivered event again now, with the same webhook-id, as one more attempt", async () => {
    const t = await webhookTenant();
    const h = hook("ok");
    const ep = await newEndpoint(t, h.url, ["*"]);
    const id = (await createImage(t, { prompt: "again" })).json.task_id;
    await waitFor(t, id);
    const [row] = await logOf(t, id, (r) => r.length === 1 && r[0].status === "succeeded");
    const res = await resend(t, row.delivery_id);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      delivery_id: row.delivery_id,
      endpoint_id: ep.endpoint_id,
      status: "succeeded",
      attempt_count: 2,
    });
    expect(res.json.attempts.map((a: any) => [a.attempt, a.http_status])).toEqual([
      [1, 200],
      [2, 200],
    ]);
    const got = await received(h.name);
    expect(got).toHaveLength(2);
    expect(got[1]!.headers["webhook-id"]).toBe(got[0]!.headers["webhook-id"]);
    expect(got[1]!.headers["webhook-id"]).toBe(row.event_id);
  });

  it("sends a task's callback again", async () => {
    const t = await webhookTenant();
    const h = hook("ok");
    const id = (await createImage(t, { prompt: "call me again", callback_url: h.url })).json.task_id;
    await waitFor(t, id, (x) => x.callback?.status === "delivered");
    const [row] = await logOf(t, id, (r) => r.length === 1 && r[0].status === "succeeded");
    expect(row.target).toBe("callback");
    const res = await resend(t, row.delivery_id);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ target: "callback", status: "succeeded", attempt_count: 2 });
    const got = await received(h.name);
    expect(got).toHaveLength(2);
    expect(got[1]!.headers["webhook-id"]).toBe(got[0]!.headers["webhook-id"]);
  });

  it("refuses while the endpoint is disabled or deleted, and for another tenant's delivery", async () => {
    const t = await webhookTenant();
    const ep = await newEndpoint(t, hook("ok").url, ["*"]);
    const id = (await createImage(t, { prompt: "refused" })).json.task_id;
    await waitFor(t, id);
    const [row] = await logOf(t, id, (r) => r.length === 1 && r[0].status === "succeeded");
    await call(`/v1/webhook-endpoints/${ep.endpoint_id}`, { key: t.api_key, method: "PATCH", body: { enabled: false } });
    const disabled = expectError(await resend(t, row.delivery_id), 409, "conflict");
    expect(disabled.details).toMatchObject({ reason: "endpoint_disabled" });
    await call(`/v1/webhook-endpoints/${ep.endpoint_id}`, { key: t.api_key, method: "DELETE" });
    const deleted = expectError(await resend(t, row.delivery_id), 409, "conflict");
    expect(deleted.details).toMatchObject({ reason: "endpoint_deleted" });
    expectError(await resend(await webhookTenant(), row.delivery_id), 404, "not_found");
  });
});

describe("POST /v1/webhook-endpoints/{id}/recover", () => {
  it("sends again what failed while the endpoint was disabled, once it is enabled", async () => {
    const t = await webhookTenant();
    const h = hook("ok");
    const ep = await newEndpoint(t, h.url, ["task.succeeded"], false);
    const since = new Date(Date.now() - 60_000).toISOString();
    const id = (await createImage(t, { prompt: "while away" })).json.task_id;
    await waitFor(t, id);
    const [row] = await logOf(t, id, (r) => r.length === 1 && r[0].status === "failed");
    expect(row.endpoint_id).toBe(ep.endpoint_id);
    expect(await received(h.name)).toEqual([]);

    const refused = expectError(await recover(t, ep.endpoint_id, since), 409, "conflict");
    expect(refused.details).toMatchObject({ reason: "endpoint_disabled" });
    await call(`/v1/webhook-endpoints/${ep.endpoint_id}`, { key: t.api_key, method: "PATCH", body: { enabled: true } });
    const res = await recover(t, ep.endpoint_id, since);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      object: "webhook_recovery",
      endpoint_id: ep.endpoint_id,
      since,
      deliveries: 1,
      skipped_pending: 0,
      left_out: 0,
      limited_by: null,
      has_more: false,
    });
    await runDurableObjectAlarm(taskStub(id));
    await logOf(t, id, (r) => r[0].status === "succeeded");
    const got = await received(h.name);
    expect(got).toHaveLength(1);
    expect(got[0]!.headers["webhook-id"]).toBe(row.event_id);
    // Nothing left to recover: succeeded deliveries are not sent again.
    expect((await recover(t, ep.endpoint_id, since)).json.deliveries).toBe(0);
  });

  it("refuses a time more than 7 days back, in the future or not a time; an unknown endpoint is 404", async () => {
    const t = await webhookTenant();
    const ep = await newEndpoint(t, hook("ok").url, ["*"]);
    expectError(
      await recover(t, ep.endpoint_id, new Date(Date.now() - 8 * 86_400_000).toISOString()),
      422,
      "invalid_request",
      "/since",
    );
    expectError(await recover(t, ep.endpoint_id, new Date(Date.now() + 60_000).toISOString()), 422, "invalid_request", "/since");
    expectError(await recover(t, ep.endpoint_id, "yesterday"), 422, "invalid_request", "/since");
    expectError(
      await call(`/v1/webhook-endpoints/${ep.endpoint_id}/recover`, { key: t.api_key, body: {} }),
      422,
      "invalid_request",
      "/since",
    );
    expectError(await recover(t, "we_unknown", new Date().toISOString()), 404, "not_found");
  });
});
