/**
 * A batch's end: one `batch.completed` event to the subscribed webhook endpoints, one signed POST
 * of the batch envelope to the batch's callback_url, and no callback per item.
 */
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { admin, call, newTenant } from "../helpers/api";
import { createBatch, imageItems, waitForBatch } from "./helpers";

let n = 0;
const hook = (mode: string) => {
  const name = `b${Date.now()}-${++n}`;
  return { name, url: `${env.RECEIVER_URL}/hook/${mode}/${name}` };
};
const received = async (name: string): Promise<{ headers: Record<string, string>; body: string }[]> =>
  (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json();

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("condition not reached");
}

function verify(secret: string, d: { headers: Record<string, string>; body: string }) {
  return new Webhook(secret).verify(d.body, {
    "webhook-id": d.headers["webhook-id"] as string,
    "webhook-timestamp": d.headers["webhook-timestamp"] as string,
    "webhook-signature": d.headers["webhook-signature"] as string,
  }) as any;
}

describe("a batch's completion", () => {
  it("sends one batch.completed event and one signed POST of the envelope to callback_url; items send no callbacks", async () => {
    const t = await newTenant({ credits: "10000", permissions: ["tasks:read", "tasks:write", "webhooks:manage"] });
    const endpointHook = hook("ok");
    const endpoint = await call("/v1/webhook-endpoints", {
      key: t.api_key,
      body: { url: endpointHook.url, events: ["batch.completed"] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const signing = (await admin(`/admin/v1/tenants/${t.tenant_id}/callback-signing-keys`, {})).json;
    const callbackHook = hook("ok");
    const res = await createBatch(t, {
      operation: "text_to_image",
      items: imageItems(4),
      callback_url: callbackHook.url,
      callback_signing_key_id: signing.id,
    });
    expect(res.status, res.text).toBe(202);
    const done = await waitForBatch(t, res.json.batch_id, (b) => b.callback?.status === "delivered");
    expect(done.callback).toMatchObject({ url: callbackHook.url, status: "delivered", attempt_count: 1, last_error: null });

    const [posted, ...more] = await received(callbackHook.name);
    expect(more).toEqual([]);
    const envelope = verify(signing.secret, posted as { headers: Record<string, string>; body: string });
    expect(envelope).toMatchObject({ object: "batch", batch_id: res.json.batch_id, status: "completed" });
    expect(envelope.counts.succeeded).toBe(4);
    expect(envelope.output_file_id).toBe(done.output_file_id);

    const events = await until(
      () => received(endpointHook.name),
      (list) => list.length > 0,
    );
    expect(events).toHaveLength(1);
    const event = verify(endpoint.json.secret, events[0] as { headers: Record<string, string>; body: string });
    expect(event.type).toBe("batch.completed");
    expect(event.data).toMatchObject({ object: "batch", batch_id: res.json.batch_id, status: "completed" });
    expect(event.data.counts).toEqual(done.counts);

    // The items' tasks carry no callback of their own.
    const tasks = await call(`/v1/tasks?batch_id=${res.json.batch_id}`, { key: t.api_key });
    for (const task of tasks.json.data) expect(task.callback).toBeUndefined();
    // Nothing more arrives later.
    await new Promise((r) => setTimeout(r, 200));
    expect(await received(endpointHook.name)).toHaveLength(1);
    expect(await received(callbackHook.name)).toHaveLength(1);

    // The delivery is in the tenant's delivery log, readable with its attempts, and can be sent again.
    const log = await until(
      () => call(`/v1/webhook-deliveries?endpoint_id=${endpoint.json.endpoint_id}`, { key: t.api_key }),
      (r) => r.json?.data?.[0]?.status === "succeeded",
    );
    const delivery = log.json.data[0];
    expect(delivery).toMatchObject({ event_type: "batch.completed", task_id: res.json.batch_id });
    const detail = await call(`/v1/webhook-deliveries/${delivery.delivery_id}`, { key: t.api_key });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.json.attempts).toHaveLength(1);
    const resent = await call(`/v1/webhook-deliveries/${delivery.delivery_id}/resend`, { key: t.api_key, method: "POST" });
    expect(resent.status, resent.text).toBe(200);
    expect(resent.json.attempts).toHaveLength(2);
    const again = await received(endpointHook.name);
    expect(again).toHaveLength(2);
    expect(again[1]?.headers["webhook-id"]).toBe(events[0]?.headers["webhook-id"]);
  });

  it("refuses a callback_url the outside-URL policy refuses, before anything starts", async () => {
    const t = await newTenant({ mode: "test" });
    const res = await createBatch(t, { operation: "text_to_image", items: imageItems(1), callback_url: "ftp://example.com/x" });
    expect(res.status).toBe(422);
    expect(res.json.error.param).toBe("/callback_url");
  });
});
