/**
 * A task's terminal status is an event, recorded in the same write, and delivered to every enabled
 * endpoint subscribed to its type: signed per Standard Webhooks with the endpoint's secret (checked
 * with the official package), `webhook-id` the event id on every attempt, retried on the schedule
 * (clock injected), a 3xx failed with its Location kept. Receivers run on 127.0.0.1.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { RETRY_SCHEDULE_MS } from "../../src/webhooks/callback-delivery";
import { type AttemptRow, attemptRows, type DeliveryRow, deliveryRows } from "../../src/webhooks/delivery-rows";
import { responseExcerpt } from "../../src/webhooks/send";
import { call, newTenant, type TestTenant } from "../helpers/api";
import { createImage, taskStub, waitFor } from "../helpers/tasks";

let n = 0;
const hook = (mode: string, query = "") => {
  const name = `w${Date.now()}-${++n}`;
  return { name, url: `${env.RECEIVER_URL}/hook/${mode}/${name}${query}` };
};
const received = async (name: string): Promise<{ headers: Record<string, string>; body: string }[]> =>
  (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json();

async function newEndpoint(t: TestTenant, url: string, events: string[], enabled = true) {
  const res = await call("/v1/webhook-endpoints", { key: t.api_key, body: { url, events, enabled } });
  expect(res.status, res.text).toBe(201);
  return res.json as { endpoint_id: string; secret: string };
}

const webhookTenant = () => newTenant({ credits: "10000", permissions: ["tasks:read", "tasks:write", "webhooks:manage"] });

interface TaskWebhooks {
  events: { event_id: string; type: string; created_at: string; fanned_out: number }[];
  deliveries: (DeliveryRow & { attempts: AttemptRow[] })[];
}

async function readWebhooks(taskId: string): Promise<TaskWebhooks> {
  let out: TaskWebhooks = { events: [], deliveries: [] };
  await runInDurableObject(taskStub(taskId), (_o, state) => {
    const sql = state.storage.sql;
    out = {
      events: sql.exec<any>("SELECT * FROM webhook_events ORDER BY created_at").toArray(),
      deliveries: deliveryRows(sql).map((d) => ({ ...d, attempts: attemptRows(sql, d.delivery_id) })),
    };
  });
  return out;
}

/** The task's webhooks once no attempt is under way or due (a read may overtake the alarm that makes one). */
async function webhooksOf(taskId: string): Promise<TaskWebhooks> {
  for (let i = 0; i < 100; i++) {
    const state = await readWebhooks(taskId);
    const busy =
      state.events.some((e) => e.fanned_out === 0) ||
      state.deliveries.some(
        (d) => d.status === "delivering" || (d.status === "pending" && (d.next_attempt_at as number) <= Date.now()),
      );
    if (!busy) return state;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`task ${taskId}: webhook attempts still under way`);
}

/** Sets the task object's clock for webhook attempts, then runs its alarm. */
async function alarmAt(taskId: string, nowMs: number) {
  await runInDurableObject(taskStub(taskId), (obj) => {
    (obj as unknown as { runner: { clock: () => number } }).runner.clock = () => nowMs;
  });
  await runDurableObjectAlarm(taskStub(taskId));
}

/** Moves a delivery's next attempt a minute into the real future, so the real alarm cannot make it before the test does. */
async function holdDelivery(taskId: string, endpointId: string): Promise<number> {
  const at = Date.now() + 60_000;
  await runInDurableObject(taskStub(taskId), (_o, state) => {
    state.storage.sql.exec("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE endpoint_id = ?", at, endpointId);
  });
  return at;
}

/** The delivery to an endpoint once it has made `count` attempts (the alarm that makes one may still be running). */
async function afterAttempts(taskId: string, endpointId: string, count: number) {
  for (let i = 0; ; i++) {
    const [d] = (await webhooksOf(taskId)).deliveries.filter((x) => x.endpoint_id === endpointId);
    if ((d?.attempt_count ?? 0) >= count || i >= 200) return d;
    await new Promise((r) => setTimeout(r, 25));
  }
}

function verify(secret: string, d: { headers: Record<string, string>; body: string }) {
  return new Webhook(secret).verify(d.body, {
    "webhook-id": d.headers["webhook-id"] as string,
    "webhook-timestamp": d.headers["webhook-timestamp"] as string,
    "webhook-signature": d.headers["webhook-signature"] as string,
  }) as any;
}

let t: TestTenant;
beforeAll(async () => {
  t = await webhookTenant();
});

describe("task events", () => {
  it("delivers task.succeeded, signed, to the subscribed and enabled endpoints only", async () => {
    const tenant = await webhookTenant();
    const ok = hook("ok");
    const other = hook("ok");
    const off = hook("ok");
    const all = hook("ok");
    const subscribed = await newEndpoint(tenant, ok.url, ["task.succeeded"]);
    await newEndpoint(tenant, other.url, ["task.failed", "task.canceled"]);
    const disabled = await newEndpoint(tenant, off.url, ["*"], false);
    const everything = await newEndpoint(tenant, all.url, ["*"]);

    const created = await createImage(tenant, { prompt: "tell my systems" });
    expect(created.status, created.text).toBe(202);
    const id = created.json.task_id;
    const done = await waitFor(tenant, id);
    expect(done.status).toBe("succeeded");

    const state = await webhooksOf(id);
    expect(state.events).toEqual([
      {
        event_id: expect.stringMatching(/^evt_/),
        type: "task.succeeded",
        created_at: expect.any(String),
        fanned_out: 1,
        data: null,
      },
    ]);
    const event = state.events[0]!;
    // The disabled endpoint's delivery is failed at once, nothing sent: a recover finds it once enabled.
    const offDelivery = state.deliveries.find((d) => d.endpoint_id === disabled.endpoint_id);
    expect(offDelivery).toMatchObject({ status: "failed", attempt_count: 0, last_error: "endpoint disabled", attempts: [] });
    const sent = state.deliveries.filter((d) => d !== offDelivery);
    expect(sent.map((d) => d.endpoint_id).sort()).toEqual([subscribed.endpoint_id, everything.endpoint_id].sort());
    for (const d of sent) {
      expect(d).toMatchObject({ status: "succeeded", attempt_count: 1, last_error: null });
      expect(d.attempts).toEqual([
        expect.objectContaining({ attempt: 1, http_status: 200, error: null, location: null, response_excerpt: "ok" }),
      ]);
    }

    const [got] = await received(ok.name);
    expect(got!.headers["webhook-id"]).toBe(event.event_id);
    const payload = verify(subscribed.secret, got!);
    expect(payload).toEqual({ type: "task.succeeded", created_at: event.created_at, data: expect.any(Object) });
    expect(payload.data).toMatchObject({ task_id: id, status: "succeeded" });
    expect(payload.data.output.images).toHaveLength(1);
    // Another endpoint's secret does not verify it.
    expect(() => verify(everything.secret, got!)).toThrow();
    expect(verify(everything.secret, (await received(all.name))[0]!).type).toBe("task.succeeded");
    expect(await received(other.name)).toEqual([]);
    expect(await received(off.name)).toEqual([]);
  });

  it("delivers task.canceled from a cancel", async () => {
    const tenant = await webhookTenant();
    const h = hook("ok");
    const ep = await newEndpoint(tenant, h.url, ["task.canceled"]);
    const id = (await createImage(tenant, { prompt: "wait", metadata: { sandbox_fault: "stay_queued" } })).json.task_id;
    const res = await call(`/v1/tasks/${id}/cancel`, { key: tenant.api_key, method: "POST", body: {} });
    expect(res.json.status).toBe("canceled");
    for (let i = 0; i < 100 && (await received(h.name)).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const [got] = await received(h.name);
    expect(verify(ep.secret, got!)).toMatchObject({ type: "task.canceled", data: { task_id: id, status: "canceled" } });
  });

  it("delivers task.failed, with the error as reads show it", async () => {
    const tenant = await webhookTenant();
    const h = hook("ok");
    const ep = await newEndpoint(tenant, h.url, ["task.failed"]);
    const id = (await createImage(tenant, { prompt: "filtered", metadata: { sandbox_fault: "content_filtered" } })).json.task_id;
    const done = await waitFor(tenant, id);
    expect(done.status).toBe("failed");
    await webhooksOf(id);
    const [got] = await received(h.name);
    const payload = verify(ep.secret, got!);
    expect(payload).toMatchObject({ type: "task.failed", data: { task_id: id, status: "failed" } });
    expect(payload.data.error).toEqual(done.error);
  });

  it("records the event with the terminal status even when no endpoint listens", async () => {
    const id = (await createImage(t, { prompt: "nobody listens" })).json.task_id;
    await waitFor(t, id);
    const state = await webhooksOf(id);
    expect(state.events).toMatchObject([{ type: "task.succeeded", fanned_out: 1 }]);
    expect(state.deliveries).toEqual([]);
  });
});

describe("retries", () => {
  it("follows the schedule with the same webhook-id, and succeeds when the receiver recovers", async () => {
    const t = await webhookTenant();
    const h = hook("fail", "?times=3");
    const ep = await newEndpoint(t, h.url, ["*"]);
    const id = (await createImage(t, { prompt: "flaky" })).json.task_id;
    await waitFor(t, id);
    let [d] = (await webhooksOf(id)).deliveries.filter((x) => x.endpoint_id === ep.endpoint_id);
    expect(d).toMatchObject({ status: "pending", attempt_count: 1, last_error: "receiver answered HTTP 500" });
    // The first attempt ran on the real clock: the next is 5 s after its answer.
    const first = Date.parse(d!.attempts[0]!.attempted_at);
    expect(d!.next_attempt_at! - first).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[1]!);
    expect(d!.next_attempt_at! - first).toBeLessThan(RETRY_SCHEDULE_MS[1]! + 1000);
    // From here the clock is injected: each attempt is made exactly when due.
    d!.next_attempt_at = await holdDelivery(id, ep.endpoint_id);
    for (let attempt = 2; attempt <= 4; attempt++) {
      const due = d!.next_attempt_at!;
      await alarmAt(id, due);
      d = await afterAttempts(id, ep.endpoint_id, attempt);
      expect(d!.attempts[attempt - 1]!.attempted_at).toBe(new Date(due).toISOString());
      if (attempt < 4) expect(d!.next_attempt_at! - due).toBe(RETRY_SCHEDULE_MS[attempt]);
    }
    expect(d).toMatchObject({ status: "succeeded", attempt_count: 4, next_attempt_at: null, last_error: null });
    expect(d!.attempts.map((a) => a.http_status)).toEqual([500, 500, 500, 200]);
    const got = await received(h.name);
    expect(got).toHaveLength(4);
    expect(got.map((g) => g.headers["webhook-id"])).toEqual(Array(4).fill((await webhooksOf(id)).events[0]!.event_id));
    // The library refuses timestamps over 5 min from its own clock: the attempts signed on the real one and 5 s later verify.
    for (const g of got.slice(0, 2)) expect(verify(ep.secret, g).type).toBe("task.succeeded");
  });

  it("gives up after the eighth attempt, each made on the schedule", async () => {
    const t = await webhookTenant();
    const h = hook("fail", "?times=100");
    const ep = await newEndpoint(t, h.url, ["task.succeeded"]);
    const id = (await createImage(t, { prompt: "never" })).json.task_id;
    await waitFor(t, id);
    // The first attempt is made on the real clock, after the task ends: let it happen before the rest are moved.
    await afterAttempts(id, ep.endpoint_id, 1);
    let due = await holdDelivery(id, ep.endpoint_id);
    for (let attempt = 2; attempt <= 8; attempt++) {
      await alarmAt(id, due);
      due = (await afterAttempts(id, ep.endpoint_id, attempt))!.next_attempt_at!;
    }
    const [d] = (await webhooksOf(id)).deliveries.filter((x) => x.endpoint_id === ep.endpoint_id);
    expect(d).toMatchObject({ status: "failed", attempt_count: 8, next_attempt_at: null });
    expect(d!.last_error).toBe("receiver answered HTTP 500; gave up after 8 attempts");
    // Attempts 2 to 8 ran on the injected clock: 5 min, 30 min, 2 h, 5 h, 10 h, 10 h apart.
    const times = d!.attempts.map((a) => Date.parse(a.attempted_at));
    expect(times.slice(2).map((at, i) => at - (times[i + 1] as number))).toEqual(RETRY_SCHEDULE_MS.slice(2));
    expect(await received(h.name)).toHaveLength(8);
  });

  it("stops a delivery whose endpoint was deleted or disabled meanwhile", async () => {
    const t = await webhookTenant();
    const gone = hook("fail", "?times=100");
    const off = hook("fail", "?times=100");
    const deleted = await newEndpoint(t, gone.url, ["*"]);
    const disabled = await newEndpoint(t, off.url, ["*"]);
    const id = (await createImage(t, { prompt: "changed my mind" })).json.task_id;
    await waitFor(t, id);
    await webhooksOf(id);
    expect((await call(`/v1/webhook-endpoints/${deleted.endpoint_id}`, { key: t.api_key, method: "DELETE" })).status).toBe(200);
    const patched = await call(`/v1/webhook-endpoints/${disabled.endpoint_id}`, {
      key: t.api_key,
      method: "PATCH",
      body: { enabled: false },
    });
    expect(patched.status).toBe(200);
    const { deliveries } = await webhooksOf(id);
    await alarmAt(id, Math.max(...deliveries.map((d) => d.next_attempt_at as number)));
    const after = await webhooksOf(id);
    const byEndpoint = new Map(after.deliveries.map((d) => [d.endpoint_id, d]));
    expect(byEndpoint.get(deleted.endpoint_id)).toMatchObject({
      status: "failed",
      attempt_count: 1,
      last_error: "endpoint deleted",
    });
    expect(byEndpoint.get(disabled.endpoint_id)).toMatchObject({
      status: "failed",
      attempt_count: 1,
      last_error: "endpoint disabled",
    });
    expect(await received(gone.name)).toHaveLength(1);
    expect(await received(off.name)).toHaveLength(1);
  });

  it("makes again an attempt a restart interrupted (counted, never answered)", async () => {
    const t = await webhookTenant();
    const h = hook("ok");
    const ep = await newEndpoint(t, h.url, ["*"]);
    const id = (await createImage(t, { prompt: "interrupted" })).json.task_id;
    await waitFor(t, id);
    await webhooksOf(id);
    // As a crash between counting the attempt and hearing its answer leaves the row.
    await runInDurableObject(taskStub(id), (_o, state) => {
      state.storage.sql.exec(
        "UPDATE webhook_deliveries SET status = 'delivering', attempt_count = 2, next_attempt_at = NULL WHERE endpoint_id = ?",
        ep.endpoint_id,
      );
      return state.storage.setAlarm(Date.now() + 60_000);
    });
    await alarmAt(id, Date.now());
    const [d] = (await webhooksOf(id)).deliveries.filter((x) => x.endpoint_id === ep.endpoint_id);
    expect(d).toMatchObject({ status: "succeeded", attempt_count: 3 });
    expect(d!.attempts.map((a) => a.attempt)).toEqual([1, 3]);
    const got = await received(h.name);
    expect(got).toHaveLength(2);
    expect(got[1]!.headers["webhook-id"]).toBe(got[0]!.headers["webhook-id"]);
  });

  it("does not follow a redirect: a failed attempt with its Location kept", async () => {
    const t = await webhookTenant();
    const h = hook("redirect");
    const ep = await newEndpoint(t, h.url, ["*"]);
    const id = (await createImage(t, { prompt: "moved" })).json.task_id;
    await waitFor(t, id);
    const [d] = (await webhooksOf(id)).deliveries.filter((x) => x.endpoint_id === ep.endpoint_id);
    expect(d).toMatchObject({ status: "pending", attempt_count: 1 });
    expect(d!.attempts[0]).toMatchObject({
      http_status: 302,
      location: `/hook/ok/${h.name}`,
      error: "receiver answered HTTP 302 (redirects are not followed)",
    });
    expect(await received(h.name)).toHaveLength(1);
  });
});

describe("the answer's excerpt", () => {
  it("keeps the first KiB, control characters removed but tabs and newlines", async () => {
    const text = await responseExcerpt(new Response(`a\u0000b\u001bc\td\ne\u007f${"x".repeat(2000)}`));
    expect(text).toBe(`abc\td\ne${"x".repeat(1024 - 10)}`);
    expect(await responseExcerpt(new Response(null))).toBe("");
  });
});
