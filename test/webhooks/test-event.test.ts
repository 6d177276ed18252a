/**
 * "Send test event": a `webhook.test` event to one endpoint, attempted at once and answered with
 * its delivery (as it stands after at most 5 s, when the receiver is slower); a spend alert of a limited key as a `key.spend_threshold` event; and the 15 s
 * answer limit of every attempt.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { policyFrom } from "../../src/lib/url-policy";
import { sendWebhook, TIMEOUT_MS } from "../../src/webhooks/send";
import { TEST_ANSWER_WAIT_MS } from "../../src/webhooks/test-wait";
import { admin, call, expectError, newTenant, type TestTenant } from "../helpers/api";

let n = 0;
const name = () => `t${Date.now()}-${++n}`;
const received = async (who: string): Promise<{ headers: Record<string, string>; body: string }[]> =>
  (await fetch(`${env.RECEIVER_URL}/deliveries/${who}`)).json();
const webhookTenant = () => newTenant({ credits: "10000", permissions: ["tasks:read", "tasks:write", "webhooks:manage"] });

async function endpoint(t: TestTenant, url: string, events: string[] = ["task.succeeded"]) {
  const res = await call("/v1/webhook-endpoints", { key: t.api_key, body: { url, events } });
  expect(res.status, res.text).toBe(201);
  return res.json as { endpoint_id: string; secret: string };
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let v = await read();
  for (let i = 0; i < 150 && !done(v); i++) {
    await new Promise((r) => setTimeout(r, 20));
    v = await read();
  }
  return v;
}

describe("POST /v1/webhook-endpoints/{id}/test", () => {
  it("delivers a signed webhook.test event to that endpoint alone and answers the attempt", async () => {
    const t = await webhookTenant();
    const who = name();
    const other = name();
    const e = await endpoint(t, `${env.RECEIVER_URL}/hook/ok/${who}`, ["task.failed"]);
    await endpoint(t, `${env.RECEIVER_URL}/hook/ok/${other}`, ["*"]);
    const res = await call(`/v1/webhook-endpoints/${e.endpoint_id}/test`, { key: t.api_key, method: "POST" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      object: "webhook_delivery",
      target: "endpoint",
      endpoint_id: e.endpoint_id,
      task_id: null,
      event_type: "webhook.test",
      status: "succeeded",
      attempt_count: 1,
    });
    expect(res.json.attempts).toHaveLength(1);
    expect(res.json.attempts[0]).toMatchObject({ http_status: 200, error: null, response_excerpt: "ok" });

    const [d] = await received(who);
    expect(d).toBeDefined();
    const body = new Webhook(e.secret).verify(d!.body, d!.headers) as { type: string; data: Record<string, unknown> };
    expect(body.type).toBe("webhook.test");
    expect(body.data).toMatchObject({ object: "webhook_test", endpoint_id: e.endpoint_id });
    expect(d!.headers["webhook-id"]).toBe(res.json.event_id);
    // Subscribing to every type does not bring the test of another endpoint.
    expect(await received(other)).toHaveLength(0);

    const log = await call(`/v1/webhook-deliveries?endpoint_id=${e.endpoint_id}`, { key: t.api_key });
    expect(log.json.data.map((x: { delivery_id: string }) => x.delivery_id)).toContain(res.json.delivery_id);
  });

  it("a failing endpoint: the attempt is answered, and the next one scheduled at 5 s", async () => {
    const t = await webhookTenant();
    const who = name();
    const e = await endpoint(t, `${env.RECEIVER_URL}/hook/fail/${who}?times=1`);
    const before = Date.now();
    const res = await call(`/v1/webhook-endpoints/${e.endpoint_id}/test`, { key: t.api_key, method: "POST" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ status: "pending", attempt_count: 1, last_error: "receiver answered HTTP 500" });
    expect(res.json.attempts[0]).toMatchObject({ http_status: 500, response_excerpt: "boom" });
    const next = Date.parse(res.json.next_attempt_at);
    expect(next).toBeGreaterThanOrEqual(before + 5000);
    expect(next).toBeLessThan(Date.now() + 5000 + 100);
  });

  it("a receiver that does not answer: the call answers the delivery still pending, and its log shows the outcome", async () => {
    const t = await webhookTenant();
    const who = name();
    // Answers 200 only after 8 s: later than the call waits, within the attempt's own 15 s.
    const e = await endpoint(t, `${env.RECEIVER_URL}/hook/hang/${who}?ms=${TEST_ANSWER_WAIT_MS + 3000}`);
    const res = await call(`/v1/webhook-endpoints/${e.endpoint_id}/test`, { key: t.api_key, method: "POST" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ object: "webhook_delivery", event_type: "webhook.test", status: "pending" });
    expect(res.json.attempts).toEqual([]);
    // The receiver has the request and has not answered it yet: the attempt goes on.
    expect(await received(who)).toHaveLength(1);
    const read = () => call(`/v1/webhook-deliveries/${res.json.delivery_id}`, { key: t.api_key });
    let delivery = await read();
    for (let i = 0; i < 300 && delivery.json.status === "pending"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      delivery = await read();
    }
    expect(delivery.json).toMatchObject({ status: "succeeded", attempt_count: 1 });
    expect(delivery.json.attempts).toEqual([
      expect.objectContaining({ http_status: 200, error: null, response_excerpt: "late" }),
    ]);
  });

  it("refuses a disabled endpoint (409), an unknown one (404) and a key without webhooks:manage (403)", async () => {
    const t = await webhookTenant();
    const e = await endpoint(t, `${env.RECEIVER_URL}/hook/ok/${name()}`);
    await call(`/v1/webhook-endpoints/${e.endpoint_id}`, { key: t.api_key, method: "PATCH", body: { enabled: false } });
    const disabled = await call(`/v1/webhook-endpoints/${e.endpoint_id}/test`, { key: t.api_key, method: "POST" });
    expectError(disabled, 409, "conflict");
    expect(disabled.json.error.details).toMatchObject({ reason: "endpoint_disabled" });
    expectError(await call("/v1/webhook-endpoints/we_nothing/test", { key: t.api_key, method: "POST" }), 404, "not_found");
    const reader = await newTenant({ credits: "1", permissions: ["tasks:read"] });
    expectError(
      await call(`/v1/webhook-endpoints/${e.endpoint_id}/test`, { key: reader.api_key, method: "POST" }),
      403,
      "forbidden",
    );
  });
});

describe("key.spend_threshold", () => {
  it("a limited key crossing 50 % of its limit sends one event to the endpoints subscribed to it", async () => {
    const tenant = await admin("/admin/v1/tenants", { name: "alerts", credits: "100000" });
    expect(tenant.status).toBe(201);
    const tenantId = tenant.json.tenant_id as string;
    const manager = await admin(`/admin/v1/tenants/${tenantId}/api-keys`, { permissions: ["webhooks:manage"] });
    const limited = await admin(`/admin/v1/tenants/${tenantId}/api-keys`, {
      permissions: ["tasks:read", "tasks:write"],
      limits: { credits: "10", period: "month" },
    });
    expect(limited.status, limited.text).toBe(201);
    const who = name();
    const e = await endpoint(
      { tenant_id: tenantId, api_key: manager.json.api_key } as TestTenant,
      `${env.RECEIVER_URL}/hook/ok/${who}`,
      ["key.spend_threshold"],
    );
    const keyId = limited.json.key_id as string;
    // Straight at the ledger: a capture of 6 of the 10 credits crosses 50 %, the next 3 cross 80.
    const capture = (id: string, amount: string) =>
      runInDurableObject(env.ACCOUNTS.getByName(tenantId), (o: AccountObject) => {
        const r = o.reserve(id, amount, { key_id: keyId });
        if (!r.ok) throw new Error(r.code);
        return o.capture(id, amount);
      });
    await capture("chat_alert_1", "6");
    await capture("chat_alert_2", "3");
    const got = await until(
      () => received(who),
      (l) => l.length >= 2,
    );
    expect(got).toHaveLength(2);
    const events = got.map(
      (d) => new Webhook(e.secret).verify(d.body, d.headers) as { type: string; data: Record<string, unknown> },
    );
    expect(events[0]).toMatchObject({
      type: "key.spend_threshold",
      data: {
        object: "key_spend_threshold",
        key_id: keyId,
        threshold: 50,
        limit_credits: "10",
        period: "month",
        spent_credits: "6",
      },
    });
    expect(events[1]).toMatchObject({ type: "key.spend_threshold", data: { threshold: 80, spent_credits: "9" } });
    expect(got[0]!.headers["webhook-id"]).not.toBe(got[1]!.headers["webhook-id"]);
  });
});

describe("the answer limit", () => {
  it("is 15 s; a receiver silent past it fails the attempt, and its late 200 does not count", async () => {
    expect(TIMEOUT_MS).toBe(15_000);
    const result = await sendWebhook({
      url: `${env.RECEIVER_URL}/hook/hang/${name()}?ms=2000`,
      eventId: "evt_timeout",
      body: "{}",
      secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
      policy: policyFrom(env),
      nowMs: Date.now(),
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ ok: false, http_status: null, error: "receiver did not answer within 0.3 s (timed_out)" });
    expect(result.duration_ms).toBeGreaterThanOrEqual(290);
    expect(result.duration_ms).toBeLessThan(2000);
  });
});
