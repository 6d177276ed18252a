/**
 * The API keys page: any member sees the keys; developers and owners create (the key shown once),
 * rotate with a grace period, and revoke; a viewer is refused (403 forbidden); every form needs
 * the session's CSRF token; every change is in the audit log with who and from where.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "../../src/audit/audit";
import { call, expectError } from "../helpers/api";
import { type Browser, freshEmail, inviteAndSignIn, signIn, tenantWithOwner } from "../helpers/console";

const KEY = /value="(sk_us_(?:live|test)_[0-9A-Za-z]{43})"/;

let tenant: { tenant_id: string; name: string };
let owner: Browser;
let developer: Browser;
let developerEmail: string;
let viewer: Browser;

beforeAll(async () => {
  const ownerEmail = freshEmail("owner");
  tenant = await tenantWithOwner(ownerEmail);
  owner = await signIn(ownerEmail);
  developerEmail = freshEmail("dev");
  developer = await inviteAndSignIn(owner, developerEmail, "developer");
  viewer = await inviteAndSignIn(owner, freshEmail("viewer"), "viewer");
});

/** Creates a key from the page as `who`; returns the key shown and the page. */
async function createKey(who: Browser, fields: Record<string, string | string[]>) {
  await who.get("/console/keys");
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
  form.set("_csrf", who.csrf ?? "");
  const page = await who.request("/console/keys", {
    method: "POST",
    body: form.toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://api.test" },
  });
  return { page, key: KEY.exec(page.text)?.[1] };
}

const keyIdOf = (page: string, name: string) =>
  new RegExp(`data-key-id="(key_[0-9a-z]+)"[^>]*>\\s*<td>${name}</td>`).exec(page)?.[1];

describe("the API keys page", () => {
  it("a viewer sees the list but no forms, and creating a key is 403 forbidden", async () => {
    const list = await viewer.get("/console/keys");
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('action="/console/keys"');
    const { page, key } = await createKey(viewer, { name: "nope", permissions: "chat", mode: "live" });
    expect(page.status).toBe(403);
    expect(key).toBeUndefined();
    const json = await viewer.request("/console/keys", {
      method: "POST",
      body: new URLSearchParams({ name: "nope", permissions: "chat", _csrf: viewer.csrf ?? "" }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://api.test", Accept: "application/json" },
    });
    expect(json.status).toBe(403);
    expect(JSON.parse(json.text).error.code).toBe("forbidden");
    const rotate = await viewer.post("/console/keys/key_whatever/rotate", { grace: "none" });
    expect(rotate.status).toBe(403);
  });

  it("a developer creates a key, sees it once, and it works against /v1/models", async () => {
    const { page, key } = await createKey(developer, {
      name: "backend",
      permissions: ["catalog:read", "tasks:read"],
      mode: "live",
    });
    expect(page.status, page.text).toBe(201);
    expect(key).toMatch(/^sk_us_live_/);
    expect(page.text).toContain('data-copy="new-api-key"');
    expect(page.text).toContain("navigator.clipboard");
    expect((await call("/v1/models", { key })).status).toBe(200);
    // Its permissions are what was ticked.
    expectError(await call("/v1/chat/completions", { key, body: { model: "x", messages: [] } }), 403, "forbidden");

    const list = await developer.get("/console/keys");
    expect(list.text).not.toContain(key as string);
    expect(list.text).toContain(`${(key as string).slice(0, 15)}…`);
    expect(list.text).toContain(`by ${developerEmail}`);
    expect(list.text).toContain("catalog:read, tasks:read");
    const keyId = keyIdOf(list.text, "backend");
    expect(keyId).toBeTruthy();

    const audit = await listAudit(env, tenant.tenant_id, { limit: 20 });
    expect(audit.entries.find((e) => e.action === "api_key.create" && e.target === keyId)).toMatchObject({
      actor: { type: "user", email: developerEmail },
      ip: developer.ip,
      user_agent: developer.userAgent,
      details: { name: "backend", mode: "live", permissions: ["catalog:read", "tasks:read"] },
    });
  });

  it("refuses a key without a name or without permissions (422), and creates a test-mode key", async () => {
    expect((await createKey(developer, { name: "", permissions: "chat" })).page.status).toBe(422);
    const none = await createKey(developer, { name: "empty", mode: "live" });
    expect(none.page.status).toBe(422);
    expect(none.page.text).toContain("choose at least one");
    expect((await createKey(developer, { name: "bad", permissions: "admin" })).page.status).toBe(422);
    const test = await createKey(developer, { name: "sandbox", permissions: "catalog:read", mode: "test" });
    expect(test.key).toMatch(/^sk_us_test_/);
  });

  it("rotating keeps the old key for the grace chosen; with none it stops at once", async () => {
    const { key: oldKey } = await createKey(developer, { name: "rotating", permissions: "catalog:read" });
    expect((await call("/v1/models", { key: oldKey })).status).toBe(200);
    const list = await developer.get("/console/keys");
    const keyId = keyIdOf(list.text, "rotating") as string;

    const rotated = await developer.post(`/console/keys/${keyId}/rotate`, { grace: "1h" });
    expect(rotated.status, rotated.text).toBe(201);
    const newKey = KEY.exec(rotated.text)?.[1];
    expect(newKey).toBeTruthy();
    expect(newKey).not.toBe(oldKey);
    expect(rotated.text).toContain("keeps working until");
    expect((await call("/v1/models", { key: oldKey })).status).toBe(200);
    expect((await call("/v1/models", { key: newKey })).status).toBe(200);
    const after = await developer.get("/console/keys");
    expect(after.text).toContain(`replaced by`);
    expect(after.text).toMatch(/active until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);

    // The replacement, rotated with no grace: it stops now, its own replacement works.
    const newId = keyIdOf(after.text, "rotating") as string;
    expect(newId).not.toBe(keyId);
    const now = await developer.post(`/console/keys/${newId}/rotate`, { grace: "none" });
    expect(now.status).toBe(201);
    expect(now.text).toContain("stopped working now");
    expectError(await call("/v1/models", { key: newKey }), 401, "invalid_api_key");
    expect((await call("/v1/models", { key: KEY.exec(now.text)?.[1] })).status).toBe(200);

    // A key already rotated cannot be rotated again; a bad grace is refused.
    expect((await developer.post(`/console/keys/${keyId}/rotate`, { grace: "1h" })).status).toBe(409);
    expect((await developer.post(`/console/keys/${newId}/rotate`, { grace: "forever" })).status).toBe(422);
  });

  it("revoking stops the key", async () => {
    const { key } = await createKey(developer, { name: "short-lived", permissions: "catalog:read" });
    const keyId = keyIdOf((await developer.get("/console/keys")).text, "short-lived") as string;
    const res = await developer.post(`/console/keys/${keyId}/revoke`, {});
    expect(res.status).toBe(303);
    expect((await developer.get("/console/keys")).text).toContain("was revoked");
    expectError(await call("/v1/models", { key }), 401, "invalid_api_key");
    const audit = await listAudit(env, tenant.tenant_id, { limit: 5 });
    expect(audit.entries[0]).toMatchObject({ action: "api_key.revoke", target: keyId, actor: { email: developerEmail } });
  });

  it("needs the session's CSRF token: without it nothing is created or revoked", async () => {
    await developer.get("/console/keys");
    const before = (await listAudit(env, tenant.tenant_id, { limit: 1 })).entries[0]?.id;
    const res = await developer.post("/console/keys", { name: "forged", permissions: "chat" }, { csrf: null });
    expect(res.status).toBe(403);
    expect(KEY.exec(res.text)).toBeNull();
    const foreign = await developer.post(
      "/console/keys",
      { name: "forged", permissions: "chat" },
      { origin: "https://evil.test" },
    );
    expect(foreign.status).toBe(403);
    expect((await listAudit(env, tenant.tenant_id, { limit: 1 })).entries[0]?.id).toBe(before);
    expect((await developer.get("/console/keys")).text).not.toContain("forged");
  });

  it("another tenant's key is unknown here: 404, untouched", async () => {
    const otherEmail = freshEmail("other");
    await tenantWithOwner(otherEmail);
    const other = await signIn(otherEmail);
    const { key } = await createKey(other, { name: "theirs", permissions: "catalog:read" });
    const theirId = keyIdOf((await other.get("/console/keys")).text, "theirs") as string;
    expect((await developer.post(`/console/keys/${theirId}/revoke`, {})).status).toBe(404);
    expect((await developer.post(`/console/keys/${theirId}/rotate`, { grace: "none" })).status).toBe(404);
    expect((await call("/v1/models", { key })).status).toBe(200);
  });
});
