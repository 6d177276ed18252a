/** What each role sees and may do in the console; refusals are 403 `forbidden` and change nothing. */
import { describe, expect, it } from "vitest";
import { admin } from "../helpers/api";
import { freshEmail, inviteAndSignIn, signIn, tenantWithOwner } from "../helpers/console";

async function team() {
  const ownerEmail = freshEmail("owner");
  const tenant = await tenantWithOwner(ownerEmail);
  const owner = await signIn(ownerEmail);
  const viewer = await inviteAndSignIn(owner, freshEmail("viewer"), "viewer");
  const developer = await inviteAndSignIn(owner, freshEmail("developer"), "developer");
  return { tenant, owner, viewer, developer };
}

describe("roles in the console", () => {
  it("only owners reach the members and audit pages; others get a 403 page", async () => {
    const { owner, viewer, developer } = await team();
    for (const path of ["/console/members", "/console/audit"]) {
      expect((await owner.get(path)).status, path).toBe(200);
      for (const b of [viewer, developer]) {
        const res = await b.get(path);
        expect(res.status, path).toBe(403);
        expect(res.text).toContain("does not allow this");
      }
    }
  });

  it("a viewer's members action is 403 forbidden and invites no one", async () => {
    const { tenant, viewer } = await team();
    await viewer.get("/console");
    const email = freshEmail("not-invited");
    const res = await viewer.post("/console/members/invite", { email, role: "owner" });
    expect(res.status).toBe(403);
    const json = await viewer.request("/console/members/invite", {
      method: "POST",
      body: new URLSearchParams({ email, role: "owner", _csrf: viewer.csrf as string }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://api.test", Accept: "application/json" },
    });
    expect(json.status).toBe(403);
    expect(JSON.parse(json.text).error).toMatchObject({ code: "forbidden", type: "permission_error", retryable: false });
    const list = await admin(`/admin/v1/tenants/${tenant.tenant_id}/members`);
    expect(list.json.data.map((m: { email: string }) => m.email)).not.toContain(email);
  });

  it("the navigation shows each role what it may open", async () => {
    const { owner, viewer, developer } = await team();
    const nav = async (b: typeof owner) => {
      const html = (await b.get("/console")).text;
      const block = html.split('<nav class="main"')[1]?.split("</nav>")[0] ?? "";
      return [...block.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    };
    expect(await nav(owner)).toEqual([
      "/console",
      "/console/keys",
      "/console/signing-keys",
      "/console/webhooks",
      "/console/provider-keys",
      "/console/storage",
      "/console/tasks",
      "/console/batches",
      "/console/requests",
      "/console/usage",
      "/console/members",
      "/console/credits",
      "/console/audit",
      "/console/connections",
      "/console/settings",
      "/console/status",
    ]);
    expect(await nav(developer)).toEqual([
      "/console",
      "/console/keys",
      "/console/signing-keys",
      "/console/webhooks",
      "/console/provider-keys",
      "/console/storage",
      "/console/tasks",
      "/console/batches",
      "/console/requests",
      "/console/usage",
      "/console/connections",
      "/console/status",
    ]);
    expect(await nav(viewer)).toEqual([
      "/console",
      "/console/keys",
      "/console/signing-keys",
      "/console/webhooks",
      "/console/tasks",
      "/console/batches",
      "/console/requests",
      "/console/usage",
      "/console/connections",
      "/console/status",
    ]);
  });
});
