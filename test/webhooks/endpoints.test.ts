/**
 * Webhook endpoints through the API: a `webhooks:manage` key registers, lists, reads, changes and
 * deletes its tenant's endpoints, never another tenant's; the secret is shown once, works with
 * the official Standard Webhooks library, and is sealed at rest; URLs follow the callbacks' policy.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountFor } from "../../src/accounts/account-stub";
import { unseal } from "../../src/lib/sealed";
import { MAX_ENDPOINTS } from "../../src/webhooks/endpoint-rows";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";

const manager = () => newTenant({ permissions: ["tasks:read", "webhooks:manage"] });
const URL_A = "https://hooks.example.com/a";

const create = (t: TestTenant, body: Record<string, unknown>) => call("/v1/webhook-endpoints", { key: t.api_key, body });
const endpoint = (t: TestTenant, id: string, method = "GET", body?: unknown) =>
  call(`/v1/webhook-endpoints/${id}`, { key: t.api_key, method, body });

async function auditOf(tenantId: string): Promise<any[]> {
  const page = (await env.ACCOUNTS.getByName(tenantId).audit({ limit: 50 })) as unknown as { entries: any[] };
  return page.entries;
}

describe("POST /v1/webhook-endpoints", () => {
  it("registers an endpoint and shows its secret once", async () => {
    const t = await manager();
    const res = await create(t, { url: URL_A, events: ["task.succeeded", "task.failed"], description: "orders" });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toEqual({
      object: "webhook_endpoint",
      endpoint_id: expect.stringMatching(/^we_/),
      mode: "live",
      url: URL_A,
      description: "orders",
      events: ["task.succeeded", "task.failed"],
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      secret_rotated_at: null,
      previous_secret_valid_until: null,
      created_at: expect.any(String),
      updated_at: res.json.created_at,
    });
    // The secret is a Standard Webhooks secret: the official library signs and verifies with it.
    const hook = new Webhook(res.json.secret);
    const at = new Date();
    const signature = hook.sign("msg_1", at, '{"type":"webhook.test"}');
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": signature,
    };
    expect(hook.verify('{"type":"webhook.test"}', headers)).toEqual({ type: "webhook.test" });

    const read = await endpoint(t, res.json.endpoint_id);
    expect(read.status).toBe(200);
    expect(read.json).not.toHaveProperty("secret");
    expect(read.json).toEqual({ ...res.json, secret: undefined });
    expect(JSON.stringify(read.json)).not.toContain(res.json.secret);

    const entry = (await auditOf(t.tenant_id)).find((e) => e.action === "webhook_endpoint.create");
    expect(entry).toMatchObject({ target: res.json.endpoint_id, actor: { type: "api_key", id: t.key_id } });
  });

  it("keeps the secret sealed at rest, bound to the endpoint", async () => {
    const t = await manager();
    const res = await create(t, { url: URL_A, events: ["*"] });
    expect(res.status).toBe(201);
    const stored = await runInDurableObject(accountFor(env, t.tenant_id) as DurableObjectStub<AccountObject>, (_o, state) =>
      state.storage.sql
        .exec<{ secret_sealed: string }>(
          "SELECT secret_sealed FROM webhook_endpoints WHERE endpoint_id = ?",
          res.json.endpoint_id,
        )
        .one(),
    );
    expect(stored.secret_sealed).not.toContain(res.json.secret.slice(6));
    expect(await unseal(env.STORAGE_ENCRYPTION_KEY, stored.secret_sealed, res.json.endpoint_id)).toBe(res.json.secret);
    await expect(unseal(env.STORAGE_ENCRYPTION_KEY, stored.secret_sealed, "we_other")).rejects.toThrow();
  });

  it("stores `*` alone when it is named with other types, and creates disabled when asked", async () => {
    const t = await manager();
    const res = await create(t, { url: URL_A, events: ["task.failed", "*"], enabled: false });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ events: ["*"], enabled: false, description: null });
  });

  it("refuses URLs outside the callbacks' policy, naming the field", async () => {
    const t = await manager();
    for (const url of [
      "http://hooks.example.com/a",
      "https://192.168.1.10/hook",
      "https://metadata.google.internal/",
      "not a url",
    ]) {
      const res = await create(t, { url, events: ["*"] });
      expectError(res, 422, "invalid_request", "/url");
    }
    // The local configuration allows loopback receivers (the tests' own).
    expect((await create(t, { url: "http://127.0.0.1:9/hook", events: ["*"] })).status).toBe(201);
  });

  it("refuses unknown, repeated or no event types, and unknown fields", async () => {
    const t = await manager();
    expectError(await create(t, { url: URL_A, events: ["task.exploded"] }), 422, "invalid_request", "/events/0");
    expectError(await create(t, { url: URL_A, events: [] }), 422, "invalid_request", "/events");
    expectError(await create(t, { url: URL_A, events: ["task.failed", "task.failed"] }), 422, "invalid_request", "/events");
    expectError(await create(t, { url: URL_A }), 422, "invalid_request", "/events");
    expectError(await create(t, { url: URL_A, events: ["*"], secret: "whsec_mine" }), 422, "invalid_request");
    expectError(
      await call("/v1/webhook-endpoints", { key: t.api_key, rawBody: "{", headers: { "Content-Type": "application/json" } }),
      422,
      "invalid_request",
      "",
    );
  });

  it(`holds a tenant to ${MAX_ENDPOINTS} endpoints; a deleted one frees its place`, async () => {
    const t = await manager();
    const ids: string[] = [];
    for (let i = 0; i < MAX_ENDPOINTS; i++) {
      const res = await create(t, { url: `${URL_A}/${i}`, events: ["*"] });
      expect(res.status).toBe(201);
      ids.push(res.json.endpoint_id);
    }
    const refused = expectError(await create(t, { url: URL_A, events: ["*"] }), 409, "conflict");
    expect(refused.details).toMatchObject({ reason: "endpoint_limit", limit: MAX_ENDPOINTS });
    expect((await endpoint(t, ids[0] as string, "DELETE")).status).toBe(200);
    expect((await create(t, { url: URL_A, events: ["*"] })).status).toBe(201);
  });
});

describe("GET, PATCH, DELETE /v1/webhook-endpoints", () => {
  it("lists the tenant's endpoints oldest first, without secrets", async () => {
    const t = await manager();
    const a = await create(t, { url: `${URL_A}/1`, events: ["task.succeeded"] });
    const b = await create(t, { url: `${URL_A}/2`, events: ["task.canceled"] });
    const list = await call("/v1/webhook-endpoints", { key: t.api_key });
    expect(list.status).toBe(200);
    expect(list.json.object).toBe("list");
    expect(list.json.has_more).toBe(false);
    expect(list.json.data.map((e: any) => e.endpoint_id)).toEqual([a.json.endpoint_id, b.json.endpoint_id]);
    expect(JSON.stringify(list.json)).not.toContain("whsec_");
  });

  it("changes the URL, events, description and enabled flag, each field alone", async () => {
    const t = await manager();
    const { json: made } = await create(t, { url: URL_A, events: ["task.succeeded"], description: "first" });
    const changed = await endpoint(t, made.endpoint_id, "PATCH", {
      events: ["task.failed", "endpoint.disabled"],
      enabled: false,
    });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    expect(changed.json).toMatchObject({
      url: URL_A,
      description: "first",
      events: ["task.failed", "endpoint.disabled"],
      enabled: false,
    });
    expect(changed.json).not.toHaveProperty("secret");
    const again = await endpoint(t, made.endpoint_id, "PATCH", {
      url: "https://other.example.com/h",
      description: null,
      enabled: true,
    });
    expect(again.json).toMatchObject({
      url: "https://other.example.com/h",
      description: null,
      enabled: true,
      events: ["task.failed", "endpoint.disabled"],
    });
    expect((await endpoint(t, made.endpoint_id)).json).toEqual(again.json);
    expect((await auditOf(t.tenant_id)).filter((e) => e.action === "webhook_endpoint.update")).toHaveLength(2);
  });

  it("refuses a bad change with the field named, and changes nothing", async () => {
    const t = await manager();
    const { json: made } = await create(t, { url: URL_A, events: ["*"] });
    expectError(await endpoint(t, made.endpoint_id, "PATCH", { url: "https://10.0.0.1/x" }), 422, "invalid_request", "/url");
    expectError(await endpoint(t, made.endpoint_id, "PATCH", { events: ["nope"] }), 422, "invalid_request", "/events/0");
    expectError(await endpoint(t, made.endpoint_id, "PATCH", { enabled: "yes" }), 422, "invalid_request", "/enabled");
    expect((await endpoint(t, made.endpoint_id)).json).toMatchObject({ url: URL_A, events: ["*"], enabled: true });
  });

  it("deletes an endpoint: gone from reads and the list, a second delete is 404", async () => {
    const t = await manager();
    const { json: made } = await create(t, { url: URL_A, events: ["*"] });
    const del = await endpoint(t, made.endpoint_id, "DELETE");
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ object: "webhook_endpoint", endpoint_id: made.endpoint_id, deleted: true });
    expectError(await endpoint(t, made.endpoint_id), 404, "not_found");
    expectError(await endpoint(t, made.endpoint_id, "DELETE"), 404, "not_found");
    expectError(await endpoint(t, made.endpoint_id, "PATCH", { enabled: true }), 404, "not_found");
    expect((await call("/v1/webhook-endpoints", { key: t.api_key })).json.data).toEqual([]);
  });

  it("never reaches another tenant's endpoint, nor an unknown or malformed id", async () => {
    const t = await manager();
    const other = await manager();
    const { json: theirs } = await create(other, { url: URL_A, events: ["*"] });
    expectError(await endpoint(t, theirs.endpoint_id), 404, "not_found");
    expectError(await endpoint(t, theirs.endpoint_id, "PATCH", { enabled: false }), 404, "not_found");
    expectError(await endpoint(t, theirs.endpoint_id, "DELETE"), 404, "not_found");
    expectError(await endpoint(t, "we_doesnotexist"), 404, "not_found");
    expectError(await endpoint(t, "x".repeat(65)), 422, "invalid_request", "/endpoint_id");
    expect((await endpoint(other, theirs.endpoint_id)).json.enabled).toBe(true);
  });

  it("needs `webhooks:manage`", async () => {
    const t = await newTenant({ permissions: ["tasks:read", "tasks:write", "keys:manage"] });
    expectError(await call("/v1/webhook-endpoints", { key: t.api_key }), 403, "forbidden");
    expectError(await create(t, { url: URL_A, events: ["*"] }), 403, "forbidden");
    expectError(await endpoint(t, "we_x", "DELETE"), 403, "forbidden");
    expectError(await call("/v1/webhook-endpoints", {}), 401, "unauthorized");
  });
});
