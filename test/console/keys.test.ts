/**
 * The API keys page: any member sees the keys; developers and owners create (the key shown once),
 * rotate with a grace period, and revoke; a viewer is refused (403 forbidden); every form needs
 * the session's CSRF token; every change is in the audit log with who and from where.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "../../src/audit/audit";
import { newFormToken } from "../../src/console/form-once";
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

/** The once-only token of the page's create form (the one after the table's row forms). */
const createToken = (html: string) => /action="\/console\/keys"[\s\S]*?name="_form" value="([0-9A-Za-z]{22})"/.exec(html)?.[1];

/** A new once-only form token, as a freshly rendered row form carries. */
const freshToken = () => newFormToken();

/** Posts `form` as `who`; a 303 is followed, as a browser does. Returns the response, the page landed on and its key. */
async function submit(who: Browser, path: string, form: URLSearchParams) {
  form.set("_csrf", who.csrf ?? "");
  const posted = await who.request(path, {
    method: "POST",
    body: form.toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://api.test" },
  });
  const page = posted.status === 303 && posted.location ? await who.get(posted.location) : posted;
  return { posted, page, key: KEY.exec(page.text)?.[1] };
}

/** Creates a key from the page as `who` (with the form's own token unless given); returns the key shown and the page. */
async function createKey(who: Browser, fields: Record<string, string | string[]>, token?: string) {
  const list = await who.get("/console/keys");
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
  form.set("_form", token ?? createToken(list.text) ?? freshToken());
  return submit(who, "/console/keys", form);
}

/** Rotates a key as `who` with the grace given; follows the redirect to the page that shows the new key. */
const rotateKey = (who: Browser, keyId: string, grace: string) =>
  submit(who, `/console/keys/${keyId}/rotate`, new URLSearchParams({ grace, _form: freshToken() }));

const keyIdOf = (page: string, name: string) =>
  new RegExp(`data-key-id="(key_[0-9a-z]+)"[^>]*>\\s*<td>${name}</td>`).exec(page)?.[1];

describe("the API keys page", () => {
  it("a viewer sees the list but no forms, and creating a key is 403 forbidden", async () => {
    const list = await viewer.get("/console/keys");
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('action="/console/keys"');
    const { page, key } = await createKey(viewer, { name: "nope", permissions: "chat", mode: "live" }, freshToken());
    expect(page.status).toBe(403);
    expect(key).toBeUndefined();
    const json = await viewer.request("/console/keys", {
      method: "POST",
      body: new URLSearchParams({ name: "nope", permissions: "chat", _csrf: viewer.csrf ?? "" }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://api.test", Accept: "application/json" },
    });
    expect(json.status).toBe(403);
    expect(JSON.parse(json.text).error.code).toBe("forbidden");
    const rotate = await rotateKey(viewer, "key_whatever", "none");
    expect(rotate.page.status).toBe(403);
  });

  it("a developer creates a key, sees it once, and it works against /v1/models", async () => {
    const { posted, page, key } = await createKey(developer, {
      name: "backend",
      permissions: ["catalog:read", "tasks:read"],
      mode: "live",
    });
    // Post, redirect, get: the form's answer is a redirect, the key is on the page it leads to.
    expect(posted.status, posted.text).toBe(303);
    expect(posted.location).toBe("/console/keys/created");
    expect(posted.text).not.toMatch(KEY);
    expect(page.status, page.text).toBe(200);
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
    // A create form without its once-only token is refused too.
    const form = new URLSearchParams({ name: "tokenless", permissions: "chat" });
    expect((await submit(developer, "/console/keys", form)).page.status).toBe(422);
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

    const { posted, page: rotated } = await rotateKey(developer, keyId, "1h");
    expect(posted.status, posted.text).toBe(303);
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
    const { page: now } = await rotateKey(developer, newId, "none");
    expect(now.status).toBe(200);
    expect(now.text).toContain("stopped working now");
    expectError(await call("/v1/models", { key: newKey }), 401, "invalid_api_key");
    expect((await call("/v1/models", { key: KEY.exec(now.text)?.[1] })).status).toBe(200);

    // A key already rotated cannot be rotated again; a bad grace is refused.
    expect((await rotateKey(developer, keyId, "1h")).page.status).toBe(409);
    expect((await rotateKey(developer, newId, "forever")).page.status).toBe(422);
  });

  it("reloading the page that showed a key creates nothing and shows nothing; the same form sent again creates nothing", async () => {
    const list = await developer.get("/console/keys");
    const token = createToken(list.text) as string;
    expect(token).toBeTruthy();
    const first = await createKey(developer, { name: "once-only", permissions: "catalog:read" }, token);
    expect(first.key).toMatch(/^sk_us_live_/);

    // Reload: no key, and not the one shown.
    const reload = await developer.get("/console/keys/created");
    expect(reload.status).toBe(200);
    expect(reload.text).toContain("No new key to show");
    expect(reload.text).not.toMatch(KEY);

    // The same form again (a resubmitted page, a double click): a redirect, and no second key.
    const again = await createKey(developer, { name: "once-only", permissions: "catalog:read" }, token);
    expect(again.posted.status).toBe(303);
    expect(again.key).toBeUndefined();
    const names = [...(await developer.get("/console/keys")).text.matchAll(/<td>once-only<\/td>/g)];
    expect(names).toHaveLength(1);
    const creates = (await listAudit(env, tenant.tenant_id, { limit: 50 })).entries.filter(
      (e) => e.action === "api_key.create" && (e.details as { name?: string }).name === "once-only",
    );
    expect(creates).toHaveLength(1);

    // Each rendering of the page carries a new token.
    expect(createToken((await developer.get("/console/keys")).text)).not.toBe(token);
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
    expect((await rotateKey(developer, theirId, "none")).page.status).toBe(404);
    expect((await call("/v1/models", { key })).status).toBe(200);
  });
});

describe("limits on the keys page", () => {
  it("a key is created with limits, shows its spend against them, and its limits are changed", async () => {
    const { page } = await createKey(developer, {
      name: "capped",
      permissions: ["tasks:write"],
      mode: "live",
      limit_credits: "12.5",
      limit_period: "week",
      limit_models: "gpt-image-2, flux-2-pro",
      limit_capabilities: "",
    });
    expect(page.status).toBe(200);
    const keyId = /key_[0-9a-z]{26}/.exec(page.text)?.[0] as string;
    const list = await developer.get("/console/keys");
    const row = new RegExp(`data-key-id="${keyId}"[\\s\\S]*?</tr>`).exec(list.text)?.[0] ?? "";
    expect(row).toContain('data-limit-credits="12.5"');
    expect(row).toContain('data-spent="0"');
    expect(row).toContain("of 12.5 per week");
    expect(row).toContain("models: gpt-image-2, flux-2-pro");
    const record = async () => (await env.ACCOUNTS.getByName(tenant.tenant_id).apiKey(keyId)) as any;
    expect((await record()).limits).toEqual({ credits: "12.5", period: "week", models: ["gpt-image-2", "flux-2-pro"] });

    const form = new URLSearchParams({
      limit_credits: "3",
      limit_period: "day",
      limit_models: "",
      limit_capabilities: "text_to_image",
    });
    const changed = await submit(developer, `/console/keys/${keyId}/limits`, form);
    expect(changed.page.status).toBe(200);
    expect((await record()).limits).toEqual({ credits: "3", period: "day", capabilities: ["text_to_image"] });
    const audit = await listAudit(env, tenant.tenant_id, { limit: 20 });
    expect(JSON.stringify(audit)).toContain("api_key.update");

    const bad = await submit(developer, `/console/keys/${keyId}/limits`, new URLSearchParams({ limit_credits: "lots" }));
    expect(bad.posted.status).toBe(422);
    expect(bad.page.text).toContain("limit_credits");
    const viewerTry = await submit(viewer, `/console/keys/${keyId}/limits`, new URLSearchParams({ limit_credits: "100" }));
    expect(viewerTry.posted.status).toBe(403);
  });
});
