/**
 * The Webhooks page: a developer adds an endpoint (secret once), sends it a test event and sees
 * the attempt, edits its events, disables and enables it, rotates its secret, recovers and
 * resends; a viewer only looks; bad input is refused on the page naming the field.
 */
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "../../src/audit/audit";
import { newFormToken } from "../../src/console/form-once";
import { admin, BASE, call, expectError } from "../helpers/api";
import { type Browser, freshEmail, inviteAndSignIn, signIn, tenantWithOwner } from "../helpers/console";

const SECRET = /value="(whsec_[A-Za-z0-9+/=]+)"/;
let tenant: { tenant_id: string };
let developer: Browser;
let viewer: Browser;
let n = 0;
const name = () => `cw${Date.now()}-${++n}`;
const received = async (who: string): Promise<{ headers: Record<string, string>; body: string }[]> =>
  (await fetch(`${env.RECEIVER_URL}/deliveries/${who}`)).json();
const freshToken = () => newFormToken();

beforeAll(async () => {
  const ownerEmail = freshEmail("owner");
  tenant = await tenantWithOwner(ownerEmail);
  const owner = await signIn(ownerEmail);
  developer = await inviteAndSignIn(owner, freshEmail("dev"), "developer");
  viewer = await inviteAndSignIn(owner, freshEmail("viewer"), "viewer");
});

/** Posts a form as `who` and follows a 303, as a browser does. */
async function submit(who: Browser, path: string, fields: Record<string, string> | [string, string][]) {
  const form = new URLSearchParams(fields);
  if (who.csrf) form.set("_csrf", who.csrf);
  const posted = await who.request(path, {
    method: "POST",
    body: form.toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
  });
  const page = posted.status === 303 && posted.location ? await who.get(posted.location) : posted;
  return { posted, page };
}

async function addEndpoint(who: Browser, url: string, events: string[]) {
  await who.get("/console/webhooks");
  const { page } = await submit(who, "/console/webhooks", [
    ["url", url],
    ["description", "orders"],
    ["_form", freshToken()],
    ...events.map((e) => ["events", e] as [string, string]),
  ]);
  const id = /Signing secret of (we_[0-9a-z]+)/.exec(page.text)?.[1];
  return { page, id: id as string, secret: SECRET.exec(page.text)?.[1] as string };
}

describe("the webhooks page", () => {
  it("a developer adds an endpoint, sends a test event and reads its attempt", async () => {
    const who = name();
    const { page, id, secret } = await addEndpoint(developer, `${env.RECEIVER_URL}/hook/ok/${who}`, [
      "task.succeeded",
      "task.failed",
    ]);
    expect(page.status, page.text).toBe(200);
    expect(id).toBeTruthy();
    expect(secret).toMatch(/^whsec_/);
    const list = await developer.get("/console/webhooks");
    expect(list.text).toContain(`data-endpoint-id="${id}" data-enabled="true"`);
    expect(list.text).toContain("task.succeeded, task.failed");
    expect(list.text).not.toContain(secret);
    // The secret shows once.
    expect((await developer.get("/console/webhooks/created")).text).not.toContain(secret);

    await developer.get(`/console/webhooks/endpoints/${id}`);
    const { posted, page: delivery } = await submit(developer, `/console/webhooks/endpoints/${id}/test`, {});
    expect(posted.status, posted.text).toBe(303);
    expect(delivery.text).toContain("Test event sent: the attempt succeeded.");
    expect(delivery.text).toContain("webhook.test");
    expect(delivery.text).toMatch(/data-attempt="1"[\s\S]*?200/);
    const [d] = await received(who);
    const body = new Webhook(secret).verify(d!.body, d!.headers) as { type: string };
    expect(body.type).toBe("webhook.test");
    // Listed in the endpoint's log, with a link to the delivery.
    const endpoint = await developer.get(`/console/webhooks/endpoints/${id}`);
    expect(endpoint.text).toMatch(/data-delivery-id="whd_[0-9a-f]+" data-status="succeeded"/);
  });

  it("edits events, disables and enables, rotates (two signatures), recovers, resends and deletes", async () => {
    const who = name();
    const { id, secret } = await addEndpoint(developer, `${env.RECEIVER_URL}/hook/fail/${who}?times=1`, ["*"]);
    await developer.get(`/console/webhooks/endpoints/${id}`);
    const edited = await submit(developer, `/console/webhooks/endpoints/${id}`, [
      ["url", `${env.RECEIVER_URL}/hook/fail/${who}?times=1`],
      ["description", ""],
      ["events", "task.canceled"],
    ]);
    expect(edited.page.text).toContain("Endpoint saved.");
    expect(edited.page.text).toMatch(/<dt>Events<\/dt>\s*<dd>task.canceled<\/dd>/);

    // A failed test event, then resent from its page: the second attempt succeeds.
    const failed = await submit(developer, `/console/webhooks/endpoints/${id}/test`, {});
    expect(failed.page.text).toContain("failed (receiver answered HTTP 500)");
    const deliveryPath = failed.posted.location as string;
    await developer.get(deliveryPath);
    const resent = await submit(developer, `${deliveryPath}/resend`, {});
    expect(resent.page.text).toContain("Sent again: the delivery is succeeded.");
    expect(resent.page.text).toContain('data-attempt="2"');

    const off = await submit(developer, `/console/webhooks/endpoints/${id}/disable`, {});
    expect(off.page.text).toContain(`data-endpoint-id="${id}" data-enabled="false"`);
    const on = await submit(developer, `/console/webhooks/endpoints/${id}/enable`, {});
    expect(on.page.text).toContain(`data-endpoint-id="${id}" data-enabled="true"`);

    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    const recovered = await submit(developer, `/console/webhooks/endpoints/${id}/recover`, { since });
    expect(recovered.page.text).toMatch(/\d+ deliveries since .* are being sent again/);

    await developer.get(`/console/webhooks/endpoints/${id}`);
    const rotated = await submit(developer, `/console/webhooks/endpoints/${id}/rotate`, { overlap: "24h", _form: freshToken() });
    const fresh = SECRET.exec(rotated.page.text)?.[1] as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    expect(rotated.page.text).toContain("two signatures");
    const test = await submit(developer, `/console/webhooks/endpoints/${id}/test`, {});
    expect(test.page.text).toContain("the attempt succeeded");
    const last = (await received(who)).at(-1)!;
    expect(() => new Webhook(secret).verify(last.body, last.headers)).not.toThrow();
    expect(() => new Webhook(fresh).verify(last.body, last.headers)).not.toThrow();

    const deleted = await submit(developer, `/console/webhooks/endpoints/${id}/delete`, {});
    expect(deleted.page.text).toContain(`Endpoint ${id} was deleted.`);
    expect(deleted.page.text).not.toContain(`data-endpoint-id="${id}"`);

    const actions = (await listAudit(env, tenant.tenant_id, { limit: 50 })).entries
      .filter((e) => e.target === id)
      .map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        "webhook_endpoint.create",
        "webhook_endpoint.update",
        "webhook_endpoint.test",
        "webhook_endpoint.rotate_secret",
        "webhook_endpoint.recover",
        "webhook_endpoint.delete",
      ]),
    );
    const creator = (await listAudit(env, tenant.tenant_id, { limit: 50 })).entries.find(
      (e) => e.target === id && e.action === "webhook_endpoint.create",
    );
    expect(creator?.actor).toMatchObject({ type: "user" });
  });

  it("refuses what cannot be: no events, a private URL, a date too old — on the page, naming the field", async () => {
    await developer.get("/console/webhooks");
    const none = await submit(developer, "/console/webhooks", { url: `${env.RECEIVER_URL}/hook/ok/x`, _form: freshToken() });
    expect(none.posted.status).toBe(422);
    expect(none.posted.text).toContain("events: choose at least one event type.");
    const priv = await submit(developer, "/console/webhooks", [
      ["url", "https://10.0.0.1/hook"],
      ["events", "*"],
      ["_form", freshToken()],
    ]);
    expect(priv.posted.status).toBe(422);
    expect(priv.posted.text).toMatch(/url .*private/);
    const { id } = await addEndpoint(developer, `${env.RECEIVER_URL}/hook/ok/${name()}`, ["*"]);
    await developer.get(`/console/webhooks/endpoints/${id}`);
    const old = await submit(developer, `/console/webhooks/endpoints/${id}/recover`, { since: "2020-01-01T00:00" });
    expect(old.posted.status).toBe(422);
    expect(old.posted.text).toContain("since must be within the last 7 days.");
  });

  it("adds live endpoints, and shows both modes' endpoints with their mode", async () => {
    const { id: liveId } = await addEndpoint(developer, `${env.RECEIVER_URL}/hook/ok/${name()}`, ["*"]);
    const k = await admin(`/admin/v1/tenants/${tenant.tenant_id}/api-keys`, { permissions: ["webhooks:manage"], mode: "test" });
    expect(k.status, k.text).toBe(201);
    const made = await call("/v1/webhook-endpoints", {
      key: k.json.api_key,
      body: { url: `${env.RECEIVER_URL}/hook/ok/${name()}`, events: ["*"] },
    });
    expect(made.json.mode).toBe("test");
    const testId = made.json.endpoint_id;
    const page = await developer.get("/console/webhooks");
    const modeOf = (id: string) =>
      new RegExp(`data-endpoint-id="${id}"[\\s\\S]*?</td>\\s*<td>(live|test)</td>`).exec(page.text)?.[1];
    expect(modeOf(liveId)).toBe("live");
    expect(modeOf(testId)).toBe("test");
    // The test key does not see the endpoint the console added.
    expectError(await call(`/v1/webhook-endpoints/${liveId}`, { key: k.json.api_key }), 404, "not_found");
  });

  it("a viewer sees endpoints and deliveries but no forms, and its posts are refused", async () => {
    const { id } = await addEndpoint(developer, `${env.RECEIVER_URL}/hook/ok/${name()}`, ["*"]);
    const page = await viewer.get("/console/webhooks");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-endpoint-id="${id}"`);
    expect(page.text).not.toContain("Add an endpoint");
    const one = await viewer.get(`/console/webhooks/endpoints/${id}`);
    expect(one.text).not.toContain("Send test event");
    const refused = await submit(viewer, `/console/webhooks/endpoints/${id}/test`, {});
    expect(refused.posted.status).toBe(403);
  });
});
