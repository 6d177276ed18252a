/** Members from the console: invite, join at first sign-in, change a role, remove, keep the last owner. */
import { describe, expect, it } from "vitest";
import { admin } from "../helpers/api";
import { askCode, freshEmail, inviteAndSignIn, lastCode, lastMail, signIn, tenantWithOwner } from "../helpers/console";

async function members(tenantId: string): Promise<{ user_id: string; email: string; role: string; status: string }[]> {
  const res = await admin(`/admin/v1/tenants/${tenantId}/members`);
  expect(res.status).toBe(200);
  return res.json.data;
}

/** The member row of `email` in the tenant, if any. */
async function memberOf(tenantId: string, email: string) {
  return (await members(tenantId)).find((m) => m.email === email);
}

async function userIdOf(tenantId: string, email: string): Promise<string> {
  const m = await memberOf(tenantId, email);
  expect(m, `${email} among the members`).toBeDefined();
  return (m as { user_id: string }).user_id;
}

async function ownerSignedIn() {
  const email = freshEmail("owner");
  const tenant = await tenantWithOwner(email);
  return { email, tenant, browser: await signIn(email) };
}

/** A signed-in owner, and a member with `role` they invited, signed in too. */
async function ownerAndMember(label: string, role: "owner" | "developer" | "viewer") {
  const { browser: owner, tenant } = await ownerSignedIn();
  const email = freshEmail(label);
  const member = await inviteAndSignIn(owner, email, role);
  return { owner, tenant, email, member, user_id: await userIdOf(tenant.tenant_id, email) };
}

describe("members", () => {
  it("an invitation is mailed; the invitee is `invited` until they sign in, then `active` with the role", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const email = freshEmail("dev");
    await browser.get("/console/members");
    const res = await browser.post("/console/members/invite", { email, role: "developer" });
    expect(res.status).toBe(303);
    const page = await browser.get("/console/members");
    expect(page.text).toContain(`Invitation sent to ${email} (developer).`);
    expect(page.text).toContain(email);
    const mail = await lastMail(email);
    expect(mail?.subject).toBe(`You are invited to ${tenant.name}`);
    expect(mail?.text).toContain("as developer");
    expect(await memberOf(tenant.tenant_id, email)).toMatchObject({
      role: "developer",
      status: "invited",
    });
    const dev = await signIn(email);
    expect(await memberOf(tenant.tenant_id, email)).toMatchObject({
      role: "developer",
      status: "active",
    });
    const overview = await dev.get("/console");
    expect(overview.text).toContain(tenant.name);
    expect(overview.text).toContain('<span class="badge">developer</span>');
  });

  it("inviting a member twice is 409 conflict on the page; a bad role or address is refused with its reason", async () => {
    const { browser, email: ownerEmail } = await ownerSignedIn();
    await browser.get("/console/members");
    const again = await browser.post("/console/members/invite", { email: ownerEmail, role: "viewer" });
    expect(again.status).toBe(409);
    expect(again.text).toContain("already a member");
    const badRole = await browser.post("/console/members/invite", { email: freshEmail("x"), role: "admin" });
    expect(badRole.status).toBe(422);
    expect(badRole.text).toContain("The role must be one of owner, developer, viewer.");
    const badEmail = await browser.post("/console/members/invite", { email: "nope", role: "viewer" });
    expect(badEmail.status).toBe(422);
  });

  it("changing a role takes effect at the member's next request", async () => {
    const { owner, email, member, user_id } = await ownerAndMember("promoted", "viewer");
    expect((await member.get("/console/members")).status).toBe(403);
    await owner.get("/console/members");
    const res = await owner.post(`/console/members/${user_id}/role`, { role: "owner" });
    expect(res.status).toBe(303);
    expect((await owner.get("/console/members")).text).toContain(`${email} is now owner.`);
    expect((await member.get("/console/members")).status).toBe(200);
  });

  it("removing a member ends their sessions' access to the tenant", async () => {
    const { owner, tenant, email, member, user_id } = await ownerAndMember("removed", "developer");
    expect((await member.get("/console")).status).toBe(200);
    await owner.get("/console/members");
    expect((await owner.post(`/console/members/${user_id}/remove`, {})).status).toBe(303);
    expect((await members(tenant.tenant_id)).map((m) => m.email)).not.toContain(email);
    const after = await member.get("/console");
    expect(after.status).toBe(403);
    expect(after.text).toContain("no tenant counts you among its members");
    // Signing in again does not bring the tenant back.
    const again = await askCode(email);
    const done = await again.post("/console/sign-in/code", { email, code: await lastCode(email) });
    expect(done.status).toBe(303);
    expect((await again.get("/console")).status).toBe(403);
  });

  it("the last owner can be neither demoted nor removed (409), by themselves or anyone", async () => {
    const { browser: owner, tenant, email } = await ownerSignedIn();
    const user_id = await userIdOf(tenant.tenant_id, email);
    await owner.get("/console/members");
    const demote = await owner.post(`/console/members/${user_id}/role`, { role: "developer" });
    expect(demote.status).toBe(409);
    expect(demote.text).toContain("A tenant keeps at least one owner");
    const remove = await owner.post(`/console/members/${user_id}/remove`, {});
    expect(remove.status).toBe(409);
    expect(await memberOf(tenant.tenant_id, email)).toMatchObject({ role: "owner" });
    // With a second active owner, the first may step down.
    const second = freshEmail("second-owner");
    await inviteAndSignIn(owner, second, "owner");
    await owner.get("/console/members");
    expect((await owner.post(`/console/members/${user_id}/role`, { role: "developer" })).status).toBe(303);
    expect(await memberOf(tenant.tenant_id, email)).toMatchObject({ role: "developer" });
  });

  it("an invited owner who never signed in does not count as the owner that must remain", async () => {
    const { browser: owner, tenant, email } = await ownerSignedIn();
    await owner.get("/console/members");
    await owner.post("/console/members/invite", { email: freshEmail("pending-owner"), role: "owner" });
    const user_id = await userIdOf(tenant.tenant_id, email);
    await owner.get("/console/members");
    expect((await owner.post(`/console/members/${user_id}/role`, { role: "viewer" })).status).toBe(409);
  });

  it("a member of an unknown user id is 404 on the page", async () => {
    const { browser: owner } = await ownerSignedIn();
    await owner.get("/console/members");
    const res = await owner.post("/console/members/usr_00000000000000000000000000/remove", {});
    expect(res.status).toBe(404);
  });

  it("a person in two tenants switches between them", async () => {
    const { browser: ownerA, tenant: a } = await ownerSignedIn();
    const email = freshEmail("two-tenants");
    const b = await tenantWithOwner(email);
    await ownerA.get("/console/members");
    await ownerA.post("/console/members/invite", { email, role: "viewer" });
    const person = await signIn(email);
    const overview = await person.get("/console");
    expect(overview.text).toContain('id="tenant-switch"');
    const current =
      overview.text.includes(`selected="" value="${a.tenant_id}"`) || overview.text.includes(`value="${a.tenant_id}" selected`);
    const target = current ? b.tenant_id : a.tenant_id;
    const switched = await person.post("/console/switch-tenant", { tenant_id: target });
    expect(switched.status).toBe(303);
    const now = await person.get("/console");
    expect(now.text).toContain(target === a.tenant_id ? '<span class="badge">viewer</span>' : '<span class="badge">owner</span>');
    // A tenant they do not belong to is refused.
    const other = await tenantWithOwner(freshEmail("stranger"));
    expect((await person.post("/console/switch-tenant", { tenant_id: other.tenant_id })).status).toBe(403);
  });
});
