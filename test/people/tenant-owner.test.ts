/** `POST /admin/v1/tenants` with `owner_email`, and the operator's member routes. */
import { describe, expect, it } from "vitest";
import { admin, expectError } from "../helpers/api";
import { freshEmail, lastMail, signIn } from "../helpers/console";

describe("a tenant with its first owner", () => {
  it("makes the address an active owner who can sign in at once", async () => {
    const email = freshEmail("First.Owner").toUpperCase();
    const t = await admin("/admin/v1/tenants", { name: "Acme", credits: "5", owner_email: email });
    expect(t.status).toBe(201);
    expect(t.json).toMatchObject({ name: "Acme", balance: "5", status: "active" });
    const members = await admin(`/admin/v1/tenants/${t.json.tenant_id}/members`);
    expect(members.json.data).toEqual([
      expect.objectContaining({ email: email.toLowerCase(), role: "owner", status: "active", invited_by: null }),
    ]);
    const page = await (await signIn(email.toLowerCase())).get("/console");
    expect(page.text).toContain("Acme");
  });

  it("links an address that already has a user: one person, two tenants", async () => {
    const email = freshEmail("twice");
    const a = await admin("/admin/v1/tenants", { name: "A", owner_email: email });
    const b = await admin("/admin/v1/tenants", { name: "B", owner_email: email });
    const ma = (await admin(`/admin/v1/tenants/${a.json.tenant_id}/members`)).json.data[0];
    const mb = (await admin(`/admin/v1/tenants/${b.json.tenant_id}/members`)).json.data[0];
    expect(ma.user_id).toBe(mb.user_id);
    const page = await (await signIn(email)).get("/console");
    expect(page.text).toContain(`value="${a.json.tenant_id}"`);
    expect(page.text).toContain(`value="${b.json.tenant_id}"`);
  });

  it("refuses a malformed owner_email at /owner_email; without it a tenant has no members", async () => {
    expectError(await admin("/admin/v1/tenants", { name: "x", owner_email: "nope" }), 422, "invalid_request", "/owner_email");
    const t = await admin("/admin/v1/tenants", { name: "no owner" });
    expect(t.status).toBe(201);
    expect((await admin(`/admin/v1/tenants/${t.json.tenant_id}/members`)).json.data).toEqual([]);
  });

  it("the operator invites a member: mailed, invited, 409 when already there, 404 for no tenant", async () => {
    const t = await admin("/admin/v1/tenants", { name: "Ops" });
    const email = freshEmail("ops-invite");
    const res = await admin(`/admin/v1/tenants/${t.json.tenant_id}/members`, { email, role: "owner" });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ email, role: "owner", status: "invited", invited_by: "operator" });
    expect((await lastMail(email))?.subject).toBe("You are invited to Ops");
    expectError(await admin(`/admin/v1/tenants/${t.json.tenant_id}/members`, { email, role: "viewer" }), 409, "conflict");
    expectError(
      await admin("/admin/v1/tenants/ten_00000000000000000000000000/members", { email, role: "viewer" }),
      404,
      "not_found",
    );
    expectError(
      await admin(`/admin/v1/tenants/${t.json.tenant_id}/members`, { email, role: "admin" }),
      422,
      "invalid_request",
      "/role",
    );
  });
});
