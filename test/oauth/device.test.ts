/**
 * The device authorization grant (RFC 8628) end to end: the device asks, polls, the member
 * approves or denies on the console, the device gets tokens once. Time is moved by rewriting the
 * device object's row (its last poll, its end), never by waiting.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { resolveAccessToken } from "../../src/oauth/access";
import type { DeviceAuthorizationResponse } from "../../src/oauth/device";
import { BASE, send } from "../helpers/api";
import { type Browser, freshEmail, inviteAndSignIn } from "../helpers/console";
import { auditOf, DEVICE_GRANT, newClient, ownerSignedIn, postForm, RESOURCE, register, token } from "./flow";

async function deviceClient(): Promise<string> {
  const res = await register({ client_name: "Terminal agent", grant_types: [DEVICE_GRANT, "refresh_token"] });
  expect(res.status, res.text).toBe(201);
  return res.json.client_id;
}

async function start(clientId: string, fields: Record<string, string> = {}) {
  const res = await postForm("/oauth/device_authorization", { client_id: clientId, ...fields });
  expect(res.status, res.text).toBe(200);
  return res.json as DeviceAuthorizationResponse;
}

function poll(deviceCode: string, clientId: string) {
  return token({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });
}

/** Makes the next poll count as one that waited its interval. */
async function waitedInterval(userCode: string): Promise<void> {
  await runInDurableObject(env.OAUTH.getByName(`device:${userCode.replace("-", "")}`), async (_o, state) => {
    state.storage.sql.exec("UPDATE device SET last_poll_at = last_poll_at - interval_s * 1000");
  });
}

async function approve(browser: Browser, userCode: string) {
  const page = await browser.get(`/console/device?user_code=${userCode}`);
  expect(page.status, page.text).toBe(200);
  const res = await browser.post("/console/device/approve", { user_code: userCode });
  expect(res.status, res.text).toBe(303);
  return { page, done: await browser.get(res.location as string) };
}

describe("device authorization grant", () => {
  it("device asks → pending → the member approves on the console → the device gets tokens, once", async () => {
    const { browser, tenant, email } = await ownerSignedIn();
    const client = await deviceClient();
    const d = await start(client, { scope: "catalog:read tasks:read tasks:write" });
    expect(d.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(d.device_code).toMatch(new RegExp(`^mcp_dc_${d.user_code.replace("-", "")}_[A-Za-z0-9_-]{43}$`));
    expect(d).toMatchObject({
      verification_uri: `${BASE}/console/device`,
      verification_uri_complete: `${BASE}/console/device?user_code=${d.user_code}`,
      expires_in: 600,
      interval: 5,
    });

    const pending = await poll(d.device_code, client);
    expect(pending.status).toBe(400);
    expect(pending.headers.get("Cache-Control")).toBe("no-store");
    expect(pending.json.error).toBe("authorization_pending");

    const { page, done } = await approve(browser, d.user_code);
    expect(page.text).toContain("Terminal agent");
    expect(page.text).toContain(tenant.name);
    expect(page.text).toContain("<code>tasks:write</code>");
    expect(done.text).toContain("Approved: Terminal agent is connected");

    await waitedInterval(d.user_code);
    const granted = await poll(d.device_code, client);
    expect(granted.status, granted.text).toBe(200);
    expect(granted.json).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "catalog:read tasks:read tasks:write" });
    const caller = await resolveAccessToken(env, granted.json.access_token, RESOURCE);
    expect(caller).toMatchObject({ tenant_id: tenant.tenant_id, email, client_id: client, client_name: "Terminal agent" });

    // Single use: the same device code again is invalid_grant.
    const again = await poll(d.device_code, client);
    expect(again.status).toBe(400);
    expect(again.json.error).toBe("invalid_grant");

    // The refresh token works like any other.
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: granted.json.refresh_token, client_id: client });
    expect(refreshed.status).toBe(200);

    const entries = await auditOf(tenant.tenant_id);
    expect(entries.find((e) => e.action === "oauth.grant.approve")).toMatchObject({
      target: caller.grant_id,
      details: { client_id: client, flow: "device" },
    });
  });

  it("polling sooner than the interval is slow_down, and the interval grows by 5 s each time", async () => {
    const client = await deviceClient();
    const d = await start(client);
    expect((await poll(d.device_code, client)).json.error).toBe("authorization_pending");
    expect((await poll(d.device_code, client)).json.error).toBe("slow_down");
    const stub = env.OAUTH.getByName(`device:${d.user_code.replace("-", "")}`);
    const interval = () =>
      runInDurableObject(
        stub,
        async (_o, state) => state.storage.sql.exec<{ i: number }>("SELECT interval_s AS i FROM device").one().i,
      );
    expect(await interval()).toBe(10);
    expect((await poll(d.device_code, client)).json.error).toBe("slow_down");
    expect(await interval()).toBe(15);
    // Waiting the (new) interval gets authorization_pending again.
    await waitedInterval(d.user_code);
    expect((await poll(d.device_code, client)).json.error).toBe("authorization_pending");
  });

  it("deny → access_denied, recorded in the audit log", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const client = await deviceClient();
    const d = await start(client);
    await browser.get(`/console/device?user_code=${d.user_code.toLowerCase().replace("-", " ")}`);
    const res = await browser.post("/console/device/deny", { user_code: d.user_code });
    expect(res.status).toBe(303);
    expect((await browser.get(res.location as string)).text).toContain("Denied: Terminal agent was not connected.");
    const denied = await poll(d.device_code, client);
    expect(denied.status).toBe(400);
    expect(denied.json.error).toBe("access_denied");
    const entries = await auditOf(tenant.tenant_id);
    expect(entries.find((e) => e.action === "oauth.device.deny")).toMatchObject({ target: client });
    // Decided once: approving afterwards is refused.
    await browser.get("/console/device");
    const late = await browser.post("/console/device/approve", { user_code: d.user_code });
    expect(late.status).toBe(409);
  });

  it("past its end: expired_token to the device, 'not valid or has expired' on the console", async () => {
    const { browser } = await ownerSignedIn();
    const client = await deviceClient();
    const d = await start(client);
    await runInDurableObject(env.OAUTH.getByName(`device:${d.user_code.replace("-", "")}`), async (_o, state) => {
      state.storage.sql.exec("UPDATE device SET expires_at = ?", Date.now() - 1);
    });
    const expired = await poll(d.device_code, client);
    expect(expired.status).toBe(400);
    expect(expired.json.error).toBe("expired_token");
    const page = await browser.get(`/console/device?user_code=${d.user_code}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain("That code is not valid or has expired.");
  });

  it("an approved code seen again on the console says it was already used", async () => {
    const { browser } = await ownerSignedIn();
    const client = await deviceClient();
    const d = await start(client);
    await approve(browser, d.user_code);
    const again = await browser.get(`/console/device?user_code=${d.user_code}`);
    expect(again.status).toBe(409);
    expect(again.text).toContain("already used");
  });

  it("a viewer's approval gives only a viewer's scopes", async () => {
    const { browser: owner } = await ownerSignedIn();
    const viewer = await inviteAndSignIn(owner, freshEmail("device-viewer"), "viewer");
    const client = await deviceClient();
    const d = await start(client);
    const { page } = await approve(viewer, d.user_code);
    expect(page.text).toContain("not granted: your role is viewer");
    const granted = await poll(d.device_code, client);
    expect(granted.json.scope).toBe("catalog:read tasks:read");
  });

  it("refuses bad device authorization requests and bad device codes", async () => {
    const codeOnly = await newClient();
    const client = await deviceClient();
    const cases: [Record<string, string>, number, string][] = [
      [{}, 400, "invalid_request"],
      [{ client_id: "cli_00000000000000000000000000" }, 401, "invalid_client"],
      [{ client_id: codeOnly }, 400, "unauthorized_client"],
      [{ client_id: client, scope: "everything" }, 400, "invalid_scope"],
      [{ client_id: client, resource: "https://elsewhere.example.com/mcp" }, 400, "invalid_target"],
    ];
    for (const [fields, status, error] of cases) {
      const res = await postForm("/oauth/device_authorization", fields);
      expect(res.status, JSON.stringify(fields)).toBe(status);
      expect(res.json.error).toBe(error);
    }
    const repeated = await send(
      new Request(`${BASE}/oauth/device_authorization`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: `client_id=${client}&client_id=${codeOnly}`,
      }),
    );
    expect(repeated.status).toBe(400);
    expect(repeated.json).toEqual({ error: "invalid_request", error_description: "The parameter client_id is repeated." });
    const json = await send(
      new Request(`${BASE}/oauth/device_authorization`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ client_id: client }),
      }),
    );
    expect(json.json.error).toBe("invalid_request");
    const d = await start(client);
    const other = await deviceClient();
    expect((await poll(d.device_code, other)).json.error).toBe("invalid_grant");
    expect((await poll(`${d.device_code.slice(0, -43)}${"B".repeat(43)}`, client)).json.error).toBe("invalid_grant");
    expect((await poll(`mcp_dc_BBBBBBBB_${"C".repeat(43)}`, client)).json.error).toBe("invalid_grant");
    expect((await poll("garbage", client)).json.error).toBe("invalid_grant");
  });

  it("typed codes are limited per member: 20 in 15 minutes, lookups and decisions alike", async () => {
    const { browser } = await ownerSignedIn();
    for (let i = 0; i < 19; i++) expect((await browser.get("/console/device?user_code=ZZZZ-ZZZB")).status).toBe(404);
    await browser.get("/console/device");
    expect((await browser.post("/console/device/approve", { user_code: "ZZZZ-ZZZB" })).status).toBe(404);
    const limited = await browser.get("/console/device?user_code=ZZZZ-ZZZB");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await browser.post("/console/device/deny", { user_code: "ZZZZ-ZZZB" })).status).toBe(429);
  });

  it("a guessed user code leaves no storage behind", async () => {
    const { browser } = await ownerSignedIn();
    const page = await browser.get("/console/device?user_code=ZZZZ-ZZZZ");
    expect(page.status).toBe(404);
    await runInDurableObject(env.OAUTH.getByName("device:ZZZZZZZZ"), async (_o, state) => {
      const tables = state.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'")
        .toArray();
      expect(tables).toEqual([]);
    });
  });
});
