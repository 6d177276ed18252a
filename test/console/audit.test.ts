/** The audit log: every console action is written (who, what, when, from where) and owners read it newest first. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { listAudit, recordAudit } from "../../src/audit/audit";
import { admin } from "../helpers/api";
import { freshEmail, inviteAndSignIn, signIn, tenantWithOwner } from "../helpers/console";

describe("audit log", () => {
  it("records tenant creation, sign-in, invitation, joining, role change, removal and sign-out", async () => {
    const ownerEmail = freshEmail("audited-owner");
    const tenant = await tenantWithOwner(ownerEmail);
    const owner = await signIn(ownerEmail);
    const email = freshEmail("audited");
    await inviteAndSignIn(owner, email, "viewer");
    const { user_id } = (await admin(`/admin/v1/tenants/${tenant.tenant_id}/members`)).json.data.find(
      (m: { email: string }) => m.email === email,
    );
    await owner.get("/console/members");
    await owner.post(`/console/members/${user_id}/role`, { role: "developer" });
    await owner.post(`/console/members/${user_id}/remove`, {});
    await owner.post("/console/sign-out", {});

    const { entries } = await listAudit(env, tenant.tenant_id, { limit: 50 });
    expect(entries.map((e) => e.action)).toEqual([
      "session.sign_out",
      "member.remove",
      "member.role_change",
      "session.sign_in",
      "member.join",
      "member.invite",
      "session.sign_in",
      "tenant.create",
    ]);
    const byAction = Object.fromEntries(entries.map((e) => [e.action, e]));
    expect(byAction["tenant.create"]?.actor).toEqual({ type: "operator", id: "operator" });
    expect(byAction["member.invite"]).toMatchObject({
      actor: { type: "user", email: ownerEmail },
      target: email,
      ip: owner.ip,
      user_agent: owner.userAgent,
      details: { role: "viewer" },
    });
    expect(byAction["member.role_change"]?.details).toEqual({ from: "viewer", to: "developer" });
    expect(byAction["member.join"]?.actor.email).toBe(email);
    for (const e of entries) expect(Date.parse(e.at)).not.toBeNaN();
    // Newest first, ids growing with time.
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => b - a));
  });

  it("shows owners the log, newest first, 50 a page with a link to older ones", async () => {
    const ownerEmail = freshEmail("reader");
    const tenant = await tenantWithOwner(ownerEmail);
    for (let i = 0; i < 60; i++) {
      await recordAudit(env, tenant.tenant_id, {
        actor: { type: "api_key", id: `key_${i}` },
        action: "api_key.use",
        target: `thing-${i}`,
        ip: "192.0.2.7",
      });
    }
    const owner = await signIn(ownerEmail);
    const first = await owner.get("/console/audit");
    expect(first.status).toBe(200);
    // The sign-in is the newest entry, then the 60 recorded above, newest first.
    const targets = [...first.text.matchAll(/<td class="mono">([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(targets.length).toBe(50);
    expect(targets[0]).toBe(ownerEmail);
    expect(targets[1]).toBe("thing-59");
    expect(first.text).toContain("192.0.2.7");
    expect(first.text).toContain("(API key)");
    const older = /href="(\/console\/audit\?before=\d+)"/.exec(first.text)?.[1];
    expect(older).toBeDefined();
    const second = await owner.get(older as string);
    const rest = [...second.text.matchAll(/<td class="mono">([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(rest[0]).toBe("thing-10");
    expect(rest.at(-1)).toBe(tenant.tenant_id);
    expect(second.text).not.toContain("Older entries");
  });
});
