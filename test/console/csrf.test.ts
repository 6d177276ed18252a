/**
 * Cross-site refusals: a state-changing console request without this session's token, with
 * another session's token, or from another site is refused with 403 and changes nothing.
 */
import { describe, expect, it } from "vitest";
import { admin } from "../helpers/api";
import { Browser, freshEmail, lastMail, signIn, tenantWithOwner } from "../helpers/console";

async function ownerSignedIn() {
  const email = freshEmail("csrf-owner");
  const tenant = await tenantWithOwner(email);
  const browser = await signIn(email);
  await browser.get("/console/members");
  return { browser, tenant };
}

async function memberEmails(tenantId: string): Promise<string[]> {
  const res = await admin(`/admin/v1/tenants/${tenantId}/members`);
  expect(res.status).toBe(200);
  return res.json.data.map((m: { email: string }) => m.email);
}

describe("CSRF protection", () => {
  it("refuses a form without the token, and nothing is done", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const invitee = freshEmail("never-invited");
    const res = await browser.post("/console/members/invite", { email: invitee, role: "viewer" }, { csrf: null });
    expect(res.status).toBe(403);
    expect(res.text).toContain("Request refused");
    expect(res.text).toContain("did not come from this console");
    expect(await memberEmails(tenant.tenant_id)).not.toContain(invitee);
    expect(await lastMail(invitee)).toBeUndefined();
  });

  it("refuses a token that is not this session's (another person's, or altered)", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const other = await ownerSignedIn();
    const invitee = freshEmail("never-invited");
    const foreign = await browser.post(
      "/console/members/invite",
      { email: invitee, role: "viewer" },
      { csrf: other.browser.csrf },
    );
    expect(foreign.status).toBe(403);
    const altered = (browser.csrf as string).replace(/.$/, (ch) => (ch === "0" ? "1" : "0"));
    const bad = await browser.post("/console/members/invite", { email: invitee, role: "viewer" }, { csrf: altered });
    expect(bad.status).toBe(403);
    expect(await memberEmails(tenant.tenant_id)).not.toContain(invitee);
  });

  it("refuses a request from another origin even with the right token", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const invitee = freshEmail("never-invited");
    const res = await browser.post(
      "/console/members/invite",
      { email: invitee, role: "viewer" },
      { origin: "https://evil.example" },
    );
    expect(res.status).toBe(403);
    expect(res.text).toContain("came from another site");
    expect(await memberEmails(tenant.tenant_id)).not.toContain(invitee);
  });

  it("refuses a cross-site request that carries no Origin but says Sec-Fetch-Site: cross-site", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const invitee = freshEmail("never-invited");
    const form = new URLSearchParams({ email: invitee, role: "viewer", _csrf: browser.csrf as string });
    const res = await browser.request("/console/members/invite", {
      method: "POST",
      body: form.toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site" },
    });
    expect(res.status).toBe(403);
    expect(await memberEmails(tenant.tenant_id)).not.toContain(invitee);
  });

  it("a script may send the token as X-CSRF-Token; a JSON caller gets the 403 envelope", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const invitee = freshEmail("by-script");
    const refused = await browser.request("/console/members/invite", {
      method: "POST",
      body: new URLSearchParams({ email: invitee, role: "viewer" }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://api.test", Accept: "application/json" },
    });
    expect(refused.status).toBe(403);
    const body = JSON.parse(refused.text);
    expect(body.error.code).toBe("forbidden");
    expect(body.error.details.reason).toBe("missing_token");
    const ok = await browser.request("/console/members/invite", {
      method: "POST",
      body: new URLSearchParams({ email: invitee, role: "viewer" }).toString(),
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: "https://api.test",
        "X-CSRF-Token": browser.csrf as string,
      },
    });
    expect(ok.status).toBe(303);
    expect(await memberEmails(tenant.tenant_id)).toContain(invitee);
  });

  it("covers the sign-in form too: no code is sent for a post without the pre-session token", async () => {
    const email = freshEmail("login-csrf");
    await tenantWithOwner(email);
    const b = new Browser();
    // No page seen: no pre-session cookie, no token.
    const blind = await b.post("/console/sign-in", { email }, { csrf: null });
    expect(blind.status).toBe(403);
    await b.get("/console/sign-in");
    const wrongToken = await b.post("/console/sign-in", { email }, { csrf: "0".repeat(64) });
    expect(wrongToken.status).toBe(403);
    expect(await lastMail(email)).toBeUndefined();
  });

  it("sign-out without the token leaves the session alive", async () => {
    const { browser } = await ownerSignedIn();
    const res = await browser.post("/console/sign-out", {}, { csrf: null });
    expect(res.status).toBe(403);
    expect((await browser.get("/console")).status).toBe(200);
  });
});
