/**
 * Rotating an endpoint's secret: the new secret is shown once; during the overlap every message
 * carries two signatures (space-separated `v1,` entries), so a receiver holding either secret
 * verifies it with the official `standardwebhooks` package; after it, or with no overlap, only
 * the new secret does.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountFor } from "../../src/accounts/account-stub";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";

let n = 0;
const hook = () => {
  const name = `s${Date.now()}-${++n}`;
  return { name, url: `${env.RECEIVER_URL}/hook/ok/${name}` };
};
const received = async (name: string): Promise<{ headers: Record<string, string>; body: string }[]> =>
  (await fetch(`${env.RECEIVER_URL}/deliveries/${name}`)).json();
const webhookTenant = () => newTenant({ credits: "10000", permissions: ["tasks:read", "tasks:write", "webhooks:manage"] });
const rotate = (t: TestTenant, id: string, body?: unknown) =>
  call(`/v1/webhook-endpoints/${id}/rotate-secret`, { key: t.api_key, method: "POST", body });

function verifies(secret: string, d: { headers: Record<string, string>; body: string }): boolean {
  try {
    new Webhook(secret).verify(d.body, {
      "webhook-id": d.headers["webhook-id"] as string,
      "webhook-timestamp": d.headers["webhook-timestamp"] as string,
      "webhook-signature": d.headers["webhook-signature"] as string,
    });
    return true;
  } catch {
    return false;
  }
}

/** The delivery an event makes now to the endpoint at `h`. */
async function deliveredNow(t: TestTenant, h: { name: string }) {
  const before = (await received(h.name)).length;
  const id = (await createImage(t, { prompt: "signed" })).json.task_id;
  await waitFor(t, id);
  for (let i = 0; i < 100 && (await received(h.name)).length === before; i++) await new Promise((r) => setTimeout(r, 20));
  const all = await received(h.name);
  expect(all).toHaveLength(before + 1);
  return all[before]!;
}

async function setup() {
  const t = await webhookTenant();
  const h = hook();
  const res = await call("/v1/webhook-endpoints", { key: t.api_key, body: { url: h.url, events: ["task.succeeded"] } });
  expect(res.status).toBe(201);
  return { t, h, endpoint: res.json as { endpoint_id: string; secret: string } };
}

describe("POST /v1/webhook-endpoints/{id}/rotate-secret", () => {
  it("signs with both secrets during the overlap (default one day), so either verifies", async () => {
    const { t, h, endpoint } = await setup();
    const res = await rotate(t, endpoint.endpoint_id);
    expect(res.status, res.text).toBe(200);
    const fresh = res.json.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(endpoint.secret);
    const until = Date.parse(res.json.previous_secret_valid_until);
    expect(until - Date.parse(res.json.secret_rotated_at)).toBe(86_400_000);
    expect((await call(`/v1/webhook-endpoints/${endpoint.endpoint_id}`, { key: t.api_key })).json).toMatchObject({
      previous_secret_valid_until: res.json.previous_secret_valid_until,
    });

    const d = await deliveredNow(t, h);
    expect(d.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const part of d.headers["webhook-signature"]!.split(" ")) expect(part).toMatch(/^v1,/);
    expect(verifies(fresh, d)).toBe(true);
    expect(verifies(endpoint.secret, d)).toBe(true);

    // Once the overlap has run out, only the new secret signs.
    await runInDurableObject(accountFor(env, t.tenant_id) as DurableObjectStub<AccountObject>, (_o, state) => {
      state.storage.sql.exec(
        "UPDATE webhook_endpoints SET previous_until = ? WHERE endpoint_id = ?",
        new Date(Date.now() - 1).toISOString(),
        endpoint.endpoint_id,
      );
    });
    const after = await deliveredNow(t, h);
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verifies(fresh, after)).toBe(true);
    expect(verifies(endpoint.secret, after)).toBe(false);
  });

  it("with overlap_seconds 0 only the new secret signs at once", async () => {
    const { t, h, endpoint } = await setup();
    const res = await rotate(t, endpoint.endpoint_id, { overlap_seconds: 0 });
    expect(res.status, res.text).toBe(200);
    expect(res.json.previous_secret_valid_until).toBeNull();
    const d = await deliveredNow(t, h);
    expect(verifies(res.json.secret, d)).toBe(true);
    expect(verifies(endpoint.secret, d)).toBe(false);
  });

  it("a second rotation ends the first overlap: the newest two secrets sign", async () => {
    const { t, h, endpoint } = await setup();
    const second = (await rotate(t, endpoint.endpoint_id, { overlap_seconds: 3600 })).json.secret;
    const third = (await rotate(t, endpoint.endpoint_id, { overlap_seconds: 3600 })).json.secret;
    const d = await deliveredNow(t, h);
    expect([verifies(third, d), verifies(second, d), verifies(endpoint.secret, d)]).toEqual([true, true, false]);
    const entry = ((await env.ACCOUNTS.getByName(t.tenant_id).audit({ limit: 50 })) as any).entries.find(
      (e: any) => e.action === "webhook_endpoint.rotate_secret",
    );
    expect(entry).toMatchObject({ target: endpoint.endpoint_id, details: { overlap_seconds: 3600 } });
  });

  it("refuses an overlap outside 0..604800 with the field named; an unknown endpoint is 404", async () => {
    const { t, endpoint } = await setup();
    for (const overlap_seconds of [-1, 604_801, 1.5, "60"]) {
      expectError(await rotate(t, endpoint.endpoint_id, { overlap_seconds }), 422, "invalid_request", "/overlap_seconds");
    }
    expectError(await rotate(t, endpoint.endpoint_id, { grace: "1h" }), 422, "invalid_request");
    expectError(await rotate(t, "we_unknown", {}), 404, "not_found");
    expect((await rotate(t, endpoint.endpoint_id, { overlap_seconds: 604_800 })).status).toBe(200);
  });
});
