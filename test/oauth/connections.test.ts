/** The console's "Connected apps": owners see and revoke every grant, other members their own. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { resolveAccessToken } from "../../src/oauth/access";
import { freshEmail, inviteAndSignIn } from "../helpers/console";
import { auditOf, ownerSignedIn, RESOURCE, tokensFor } from "./flow";

describe("/console/connections", () => {
  it("lists grants with client, member and scopes; owners see all, a developer only theirs", async () => {
    const { browser: owner, email: ownerEmail } = await ownerSignedIn();
    const devEmail = freshEmail("conn-dev");
    const dev = await inviteAndSignIn(owner, devEmail, "developer");
    const mine = await tokensFor(owner);
    const theirs = await tokensFor(dev);
    const ownerGrant = (await resolveAccessToken(env, mine.access_token, RESOURCE)).grant_id;
    const devGrant = (await resolveAccessToken(env, theirs.access_token, RESOURCE)).grant_id;

    const all = await owner.get("/console/connections");
    expect(all.status).toBe(200);
    expect(all.text).toContain('href="/console/connections" aria-current="page"');
    expect(all.text).toContain(`data-grant-id="${ownerGrant}"`);
    expect(all.text).toContain(`data-grant-id="${devGrant}"`);
    expect(all.text).toContain("Test MCP client");
    expect(all.text).toContain(devEmail);
    expect(all.text).toContain("<code>tasks:write</code>");

    const own = await dev.get("/console/connections");
    expect(own.text).toContain(`data-grant-id="${devGrant}"`);
    expect(own.text).not.toContain(`data-grant-id="${ownerGrant}"`);
    expect(own.text.split("<tbody>")[1]).not.toContain(ownerEmail);

    // A developer cannot revoke someone else's grant: to them it does not exist.
    const refused = await dev.post(`/console/connections/${ownerGrant}/revoke`, {});
    expect(refused.status).toBe(404);
    await expect(resolveAccessToken(env, mine.access_token, RESOURCE)).resolves.toBeDefined();

    // The owner can revoke the developer's.
    const revoked = await owner.post(`/console/connections/${devGrant}/revoke`, {});
    expect(revoked.status).toBe(303);
    const after = await owner.get("/console/connections");
    expect(after.text).toContain(`Revoked ${devGrant}: its tokens no longer work.`);
    expect(after.text).not.toContain(`data-grant-id="${devGrant}"`);
    await expect(resolveAccessToken(env, theirs.access_token, RESOURCE)).rejects.toMatchObject({ code: "invalid_api_key" });
  });

  it("a revocation is audited; revoking twice is 404; the form is CSRF-protected", async () => {
    const { browser, tenant } = await ownerSignedIn();
    const t = await tokensFor(browser);
    const grant = (await resolveAccessToken(env, t.access_token, RESOURCE)).grant_id;
    await browser.get("/console/connections");
    const forged = await browser.post(`/console/connections/${grant}/revoke`, {}, { csrf: null });
    expect(forged.status).toBe(403);
    await expect(resolveAccessToken(env, t.access_token, RESOURCE)).resolves.toBeDefined();
    expect((await browser.post(`/console/connections/${grant}/revoke`, {})).status).toBe(303);
    await browser.get("/console/connections");
    expect((await browser.post(`/console/connections/${grant}/revoke`, {})).status).toBe(404);
    const entries = await auditOf(tenant.tenant_id);
    expect(entries.find((e) => e.action === "oauth.grant.revoke")).toMatchObject({
      target: grant,
      actor: { type: "user" },
      details: { reason: "console", client_id: t.client },
    });
  });

  it("every member sees Connected apps in the navigation", async () => {
    const { browser: owner } = await ownerSignedIn();
    const viewer = await inviteAndSignIn(owner, freshEmail("conn-viewer"), "viewer");
    const page = await viewer.get("/console");
    expect(page.text).toContain('href="/console/connections"');
    expect((await viewer.get("/console/connections")).status).toBe(200);
  });
});
