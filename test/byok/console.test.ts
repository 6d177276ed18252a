/**
 * The console's Provider keys page: owners and developers add a key (checked with its provider),
 * change its mode, see its status and last use, and remove it; viewers have no such page. The key
 * never appears on a page.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { admin } from "../helpers/api";
import { type Browser, freshEmail, inviteAndSignIn, signIn, tenantWithOwner } from "../helpers/console";
import { follow, newTag } from "../providers/harness";
import { createImageTask, fakeUrl, tenantKey } from "./helpers";

let tenant: { tenant_id: string };
let owner: Browser;
let developer: Browser;
let viewer: Browser;

beforeAll(async () => {
  const ownerEmail = freshEmail("byok-owner");
  tenant = await tenantWithOwner(ownerEmail);
  owner = await signIn(ownerEmail);
  developer = await inviteAndSignIn(owner, freshEmail("byok-dev"), "developer");
  viewer = await inviteAndSignIn(owner, freshEmail("byok-viewer"), "viewer");
});

async function submit(who: Browser, path: string, fields: Record<string, string>) {
  const posted = await who.post(path, fields);
  const page = posted.status === 303 && posted.location ? await who.get(posted.location) : posted;
  return { posted, page };
}

describe("the provider keys page", () => {
  it("a developer adds a fal key, changes its mode, sees its last use, and removes it", async () => {
    const empty = await developer.get("/console/provider-keys");
    expect(empty.status).toBe(200);
    expect(empty.text).toContain("No provider keys yet.");

    const key = tenantKey("fal");
    const { posted, page } = await submit(developer, "/console/provider-keys", {
      provider: "fal",
      api_key: key,
      mode: "prefer",
      models: "flux-2-pro",
      base_url: fakeUrl("fal"),
      failover: "on",
    });
    expect(posted.status, posted.text).toBe(303);
    expect(page.text).toContain(`accepted the key ending …${key.slice(-4)}`);
    expect(page.text).toContain('data-provider="fal" data-status="active"');
    expect(page.text).not.toContain(key);

    // Its next task on flux-2-pro runs on it, and the page shows when.
    const { api_key } = await apiKeyOf(tenant.tenant_id);
    const t = { tenant_id: tenant.tenant_id, api_key, key_id: "" };
    const created = await createImageTask(t, "flux-2-pro", newTag("byok-console"));
    const { task } = await follow(t, created.task_id);
    expect(task.provider).toMatchObject({ name: "fal", key: "tenant" });
    const used = await developer.get("/console/provider-keys");
    expect(page.text).toContain('data-last-used=""');
    expect(used.text).toMatch(/data-last-used="\d{4}-\d\d-\d\dT/);

    const changed = await submit(developer, "/console/provider-keys/fal/mode", { mode: "only", models: "flux-2-pro" });
    expect(changed.posted.status).toBe(303);
    expect(changed.page.text).toContain("now used as only");
    expect(changed.page.text).toContain("no failover to other providers");

    const removed = await submit(developer, "/console/provider-keys/fal/remove", {});
    expect(removed.posted.status).toBe(303);
    expect(removed.page.text).toContain("No provider keys yet.");
  });

  it("shows the provider's refusal of a key, and stores nothing", async () => {
    const { posted } = await submit(owner, "/console/provider-keys", {
      provider: "openai",
      api_key: "sk-wrong-000000000000",
      mode: "prefer",
      base_url: fakeUrl("openai"),
    });
    expect(posted.status).toBe(422);
    expect(posted.text).toContain("openai refused the key");
    expect(posted.text).not.toContain("sk-wrong-000000000000");
    expect(posted.text).not.toContain(`data-provider="openai"`);
  });

  it("is not a viewer's", async () => {
    const res = await viewer.get("/console/provider-keys");
    expect(res.status).toBe(403);
    const home = await viewer.get("/console");
    expect(home.text).not.toContain('href="/console/provider-keys"');
    expect((await developer.get("/console")).text).toContain('href="/console/provider-keys"');
  });
});

/** A live API key of the tenant, as the operator issues it, to create tasks with. */
async function apiKeyOf(tenantId: string): Promise<{ api_key: string }> {
  const k = await admin(`/admin/v1/tenants/${tenantId}/api-keys`, {});
  expect(k.status).toBe(201);
  return { api_key: k.json.api_key };
}
