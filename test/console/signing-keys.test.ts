/** The signing keys page: create (the secret shown once), rotate with an overlap, retire; viewers only look. */
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { accountFor } from "../../src/accounts/service";
import { listAudit } from "../../src/audit/audit";
import { signatureHeaders } from "../../src/callbacks/signing";
import { type Browser, freshEmail, inviteAndSignIn, signIn, tenantWithOwner } from "../helpers/console";

const SECRET = /value="(whsec_[A-Za-z0-9+/=]+)"/;

let tenant: { tenant_id: string };
let developer: Browser;
let viewer: Browser;

beforeAll(async () => {
  const ownerEmail = freshEmail("owner");
  tenant = await tenantWithOwner(ownerEmail);
  const owner = await signIn(ownerEmail);
  developer = await inviteAndSignIn(owner, freshEmail("dev"), "developer");
  viewer = await inviteAndSignIn(owner, freshEmail("viewer"), "viewer");
});

async function create(who: Browser) {
  await who.get("/console/signing-keys");
  const page = await who.post("/console/signing-keys", {});
  const id = /Signing secret of (whk_[0-9a-z]+)/.exec(page.text)?.[1];
  return { page, id, secret: SECRET.exec(page.text)?.[1] };
}

describe("the signing keys page", () => {
  it("a developer creates a key (secret once), rotates it with an overlap, and retires it", async () => {
    const { page, id, secret } = await create(developer);
    expect(page.status, page.text).toBe(201);
    expect(secret).toBeTruthy();
    const list = await developer.get("/console/signing-keys");
    expect(list.text).toContain(`data-signing-key-id="${id}"`);
    expect(list.text).not.toContain(secret as string);

    const rotated = await developer.post(`/console/signing-keys/${id}/rotate`, { overlap: "24h" });
    expect(rotated.status, rotated.text).toBe(201);
    const newSecret = SECRET.exec(rotated.text)?.[1] as string;
    expect(newSecret).not.toBe(secret);
    expect(rotated.text).toContain("two signatures");
    // A delivery now verifies with either secret.
    const key = await accountFor(env, tenant.tenant_id).signingKey(id as string);
    const body = "{}";
    const headers = signatureHeaders(key?.secrets ?? [], "msg_1", Math.floor(Date.now() / 1000), body);
    expect(() => new Webhook(secret as string).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();

    const retired = await developer.post(`/console/signing-keys/${id}/retire`, {});
    expect(retired.status).toBe(303);
    const after = await developer.get("/console/signing-keys");
    expect(after.text).toContain("was retired");
    expect(after.text).toContain(`data-signing-key-id="${id}" data-status="retired"`);
    expect((await developer.post(`/console/signing-keys/${id}/rotate`, { overlap: "1h" })).status).toBe(422);

    const actions = (await listAudit(env, tenant.tenant_id, { limit: 10 })).entries.filter((e) => e.target === id);
    expect(actions.map((e) => e.action)).toEqual(["signing_key.retire", "signing_key.rotate", "signing_key.create"]);
  });

  it("a viewer sees the list but cannot create, rotate or retire (403)", async () => {
    const { id } = await create(developer);
    const list = await viewer.get("/console/signing-keys");
    expect(list.status).toBe(200);
    expect(list.text).toContain(id as string);
    expect(list.text).not.toContain('action="/console/signing-keys"');
    expect((await viewer.post("/console/signing-keys", {})).status).toBe(403);
    expect((await viewer.post(`/console/signing-keys/${id}/rotate`, { overlap: "1h" })).status).toBe(403);
    expect((await viewer.post(`/console/signing-keys/${id}/retire`, {})).status).toBe(403);
  });

  it("another tenant's signing key is not found here", async () => {
    const otherEmail = freshEmail("other");
    await tenantWithOwner(otherEmail);
    const { id } = await create(await signIn(otherEmail));
    expect((await developer.post(`/console/signing-keys/${id}/retire`, {})).status).toBe(404);
  });
});
