/**
 * A tenant the operator disables (`POST /admin/v1/tenants/{id}/disable`) stops working at every
 * door, each refusing in the one place it resolves its principal: API keys on /v1 and /mcp
 * (within the key cache's MAX_AGE_MS), OAuth access tokens on /mcp and console sessions (at once:
 * neither is cached). The answer is the spec's 403 `tenant_disabled`; the console shows a page
 * saying the account is disabled. Enabling it again restores everything.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_AGE_MS } from "../../src/accounts/key-cache";
import { admin, call, env, expectError, type TestTenant } from "../helpers/api";
import { type Browser, freshEmail, signIn, tenantWithOwner } from "../helpers/console";
import { createImage, getTask } from "../helpers/tasks";
import { rawModern } from "../mcp/helpers";
import { newClient, ownerSignedIn, tokensFor } from "../oauth/flow";

const disable = async (tenantId: string) => {
  const res = await admin(`/admin/v1/tenants/${tenantId}/disable`, {});
  expect(res.status, res.text).toBe(200);
  expect(res.json.status).toBe("disabled");
};
const enable = async (tenantId: string) => {
  const res = await admin(`/admin/v1/tenants/${tenantId}/enable`, {});
  expect(res.json.status).toBe("active");
};

/** Calls until `refused` holds, and how long that took after the change (ms); fails past `bound`. */
async function refusedWithin(send: () => Promise<{ status: number; json?: any }>, bound: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const res = await send();
    if (res.status === 403 && res.json?.error?.code === "tenant_disabled") return Date.now() - started;
    expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
    if (Date.now() - started > bound + 2_000) throw new Error(`still served ${Date.now() - started} ms after the disable`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("a disabled tenant at every door", () => {
  let email: string;
  let tenantId: string;
  let owner: Browser;
  let key: TestTenant;
  let queuedTask: string;

  beforeAll(async () => {
    email = freshEmail("disabled-owner");
    tenantId = (await tenantWithOwner(email)).tenant_id;
    owner = await signIn(email);
    const k = await admin(`/admin/v1/tenants/${tenantId}/api-keys`, {});
    key = { tenant_id: tenantId, api_key: k.json.api_key, key_id: k.json.key_id };
    queuedTask = (await createImage(key, { prompt: "still queued", metadata: { sandbox_fault: "stay_queued" } })).json.task_id;
  });

  it("the console refuses a signed-in owner at once, with a page saying the account is disabled", async () => {
    // A warm session, with the page's CSRF token in hand.
    expect((await owner.get("/console/keys")).status).toBe(200);
    const account = env.ACCOUNTS.getByName(tenantId);
    const keysBefore = (await account.apiKeys()).length;
    await disable(tenantId);

    const page = await owner.get("/console");
    expect(page.status).toBe(403);
    expect(page.text).toContain("Account disabled");
    expect(page.text).toContain("is disabled");
    expect(page.text).toContain('action="/console/sign-out"');
    const json = await owner.request("/console/keys", { headers: { Accept: "application/json" } });
    expect(json.status).toBe(403);
    expect(JSON.parse(json.text).error.code).toBe("tenant_disabled");

    // Nothing the owner could do before works now: mint a key, invite, add a signing key, cancel.
    for (const [path, fields] of [
      ["/console/keys", { name: "after the disable", permissions: "tasks:read" }],
      ["/console/members/invite", { email: freshEmail("late-invite"), role: "viewer" }],
      ["/console/signing-keys", {}],
      [`/console/tasks/${queuedTask}/cancel`, {}],
    ] as const) {
      const res = await owner.post(path, fields);
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(403);
      expect(res.text).toContain("tenant_disabled");
    }
    expect(await account.apiKeys()).toHaveLength(keysBefore);
    expect((await account.members()).map((m) => m.email)).toEqual([email]);
    expect(await account.signingKeys()).toHaveLength(0);

    // The person can still sign out.
    const out = await owner.post("/console/sign-out", {});
    expect(out.status).toBe(303);
    expect(out.location).toBe("/console/sign-in");
  });

  it("the tenant's API key is refused on /v1 and /mcp within the key cache's bound", async () => {
    // The key was used (and cached) before the disable; no isolate is told of it.
    const rest = await refusedWithin(() => call("/v1/models", { key: key.api_key }), MAX_AGE_MS);
    expect(rest).toBeLessThanOrEqual(MAX_AGE_MS + 250);
    expectError(
      await call(`/v1/tasks/${queuedTask}/cancel`, { key: key.api_key, method: "POST", body: {} }),
      403,
      "tenant_disabled",
    );
    const mcp = await rawModern(key.api_key, "tools/list");
    expect(mcp.status).toBe(403);
    expect(mcp.json.error.code).toBe("tenant_disabled");
  });

  it("enabling it again restores the console and the key", async () => {
    await enable(tenantId);
    const back = await signIn(email);
    expect((await back.get("/console/keys")).status).toBe(200);
    await expect
      .poll(async () => (await call("/v1/models", { key: key.api_key })).status, { timeout: MAX_AGE_MS + 1_000, interval: 100 })
      .toBe(200);
    // The task nobody could cancel while the tenant was disabled is as it was.
    expect((await getTask(key, queuedTask)).json.status).toBe("queued");
  });
});

describe("an OAuth access token of a disabled tenant", () => {
  it("is refused on /mcp at once with 403 tenant_disabled, and works again once enabled", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const tokens = await tokensFor(browser, await newClient());
    const before = await rawModern(tokens.access_token, "tools/list");
    expect(before.status, before.text).toBe(200);
    await disable(tenant.tenant_id);
    const refused = await rawModern(tokens.access_token, "tools/list");
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe("tenant_disabled");
    await enable(tenant.tenant_id);
    expect((await rawModern(tokens.access_token, "tools/list")).status).toBe(200);
  });
});

describe("a person in a disabled tenant and an active one", () => {
  it("signs in to the active one, and sees the disabled page (with the switcher) only when switching to the disabled one", async () => {
    const email = freshEmail("two-tenants");
    const first = await tenantWithOwner(email);
    const second = await tenantWithOwner(email);
    await disable(first.tenant_id);
    const browser = await signIn(email);
    const overview = await browser.get("/console");
    expect(overview.status).toBe(200);
    expect(overview.text).toContain(second.name);
    const moved = await browser.post("/console/switch-tenant", { tenant_id: first.tenant_id });
    expect(moved.status).toBe(303);
    const page = await browser.get("/console");
    expect(page.status).toBe(403);
    expect(page.text).toContain(first.name);
    expect(page.text).toContain('action="/console/switch-tenant"');
    // And back, from the disabled page.
    expect((await browser.post("/console/switch-tenant", { tenant_id: second.tenant_id })).status).toBe(303);
    expect((await browser.get("/console")).status).toBe(200);
  });
});
