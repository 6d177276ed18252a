/** The signing keys page: create (the secret shown once), rotate with an overlap, retire; viewers only look. */
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { accountFor } from "../../src/accounts/account-stub";
import { listAudit } from "../../src/audit/audit";
import { newFormToken } from "../../src/console/form-once";
import { signatureHeaders } from "../../src/webhooks/callback-signing";
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

const formToken = (html: string) => /name="_form" value="([0-9A-Za-z]{22})"/.exec(html)?.[1];
const freshToken = () => newFormToken();

/** Posts a form as `who` and follows a 303, as a browser does. */
async function submit(who: Browser, path: string, fields: Record<string, string>) {
  const posted = await who.post(path, fields);
  const page = posted.status === 303 && posted.location ? await who.get(posted.location) : posted;
  return { posted, page };
}

async function create(who: Browser, token?: string) {
  const list = await who.get("/console/signing-keys");
  const { posted, page } = await submit(who, "/console/signing-keys", {
    _form: token ?? formToken(list.text.split('action="/console/signing-keys"')[1] ?? "") ?? freshToken(),
  });
  const id = /Signing secret of (whk_[0-9a-z]+)/.exec(page.text)?.[1];
  return { posted, page, id, secret: SECRET.exec(page.text)?.[1] };
}

const rotate = (who: Browser, id: string, overlap: string) =>
  submit(who, `/console/signing-keys/${id}/rotate`, { overlap, _form: freshToken() });

describe("the signing keys page", () => {
  it("a developer creates a key (secret once), rotates it with an overlap, and retires it", async () => {
    const { posted, page, id, secret } = await create(developer);
    expect(posted.status, posted.text).toBe(303);
    expect(posted.location).toBe("/console/signing-keys/created");
    expect(page.status, page.text).toBe(200);
    expect(secret).toBeTruthy();
    const list = await developer.get("/console/signing-keys");
    expect(list.text).toContain(`data-signing-key-id="${id}"`);
    expect(list.text).not.toContain(secret as string);

    const { posted: rotatedPost, page: rotated } = await rotate(developer, id as string, "24h");
    expect(rotatedPost.status, rotatedPost.text).toBe(303);
    expect(rotated.status, rotated.text).toBe(200);
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
    expect((await rotate(developer, id as string, "1h")).page.status).toBe(422);

    const actions = (await listAudit(env, tenant.tenant_id, { limit: 10 })).entries.filter((e) => e.target === id);
    expect(actions.map((e) => e.action)).toEqual(["signing_key.retire", "signing_key.rotate", "signing_key.create"]);
  });

  it("the secret shows once: a reload shows nothing and creates nothing; the same form again creates nothing", async () => {
    const token = freshToken();
    const first = await create(developer, token);
    expect(first.secret).toBeTruthy();
    const reload = await developer.get("/console/signing-keys/created");
    expect(reload.status).toBe(200);
    expect(reload.text).toContain("No new secret to show");
    expect(reload.text).not.toMatch(SECRET);
    const count = async () => [...(await developer.get("/console/signing-keys")).text.matchAll(/data-signing-key-id=/g)].length;
    const before = await count();
    const again = await create(developer, token);
    expect(again.posted.status).toBe(303);
    expect(again.secret).toBeUndefined();
    expect(await count()).toBe(before);
  });

  it("a viewer sees the list but cannot create, rotate or retire (403)", async () => {
    const { id } = await create(developer);
    const list = await viewer.get("/console/signing-keys");
    expect(list.status).toBe(200);
    expect(list.text).toContain(id as string);
    expect(list.text).not.toContain('action="/console/signing-keys"');
    expect((await viewer.post("/console/signing-keys", { _form: freshToken() })).status).toBe(403);
    expect((await rotate(viewer, id as string, "1h")).page.status).toBe(403);
    expect((await viewer.post(`/console/signing-keys/${id}/retire`, {})).status).toBe(403);
  });

  it("another tenant's signing key is not found here", async () => {
    const otherEmail = freshEmail("other");
    await tenantWithOwner(otherEmail);
    const { id } = await create(await signIn(otherEmail));
    expect((await developer.post(`/console/signing-keys/${id}/retire`, {})).status).toBe(404);
  });
});
