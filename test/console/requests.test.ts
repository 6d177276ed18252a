/**
 * The console's Requests pages: the log listed and filtered for members who may read it, a
 * request's page with its time line, Run again for owners and developers only (a viewer sees no
 * button and is refused the post), nothing of another tenant's; and what the console creates on
 * the tenant's behalf is logged with `door: "console"`, the member as the key, and `replay_of`.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { tenantScope } from "../../src/keys/scope";
import { userIdByEmail } from "../../src/people/users";
import { listRequests } from "../../src/services/request-log";
import { admin, BASE, type TestTenant } from "../helpers/api";
import { type Browser, freshEmail, inviteAndSignIn, signIn, tenantWithOwner } from "../helpers/console";
import { createImage, waitFor } from "../helpers/tasks";

let t: TestTenant;
let ownerEmail: string;
let owner: Browser;
let viewer: Browser;
let stranger: Browser;
let createId: string;
let refusedId: string;

/** The log as the service lists it for the tenant, polled: entries are written just after each answer. */
async function logged(route: string, ready: (rows: any[]) => boolean) {
  for (let i = 0; i < 100; i++) {
    const page = await listRequests(env, tenantScope(t.tenant_id), { limit: 100, route });
    if (ready(page.data)) return page.data;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the log did not show what was expected for ${route}`);
}

async function listed(who: Browser, query: string, ready: (html: string) => boolean) {
  for (let i = 0; i < 100; i++) {
    const page = await who.get(`/console/requests${query}`);
    expect(page.status, page.text).toBe(200);
    if (ready(page.text)) return page.text;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the Requests page did not show what was expected for ${query}`);
}

const keyOf = (html: string) => /name="idempotency_key" value="(console-[0-9a-f-]{36})"/.exec(html)?.[1] as string;

beforeAll(async () => {
  ownerEmail = freshEmail("owner");
  const tenant = await tenantWithOwner(ownerEmail, "1000");
  const k = await admin(`/admin/v1/tenants/${tenant.tenant_id}/api-keys`, {});
  expect(k.status).toBe(201);
  t = { tenant_id: tenant.tenant_id, api_key: k.json.api_key, key_id: k.json.key_id } as TestTenant;
  owner = await signIn(ownerEmail);
  viewer = await inviteAndSignIn(owner, freshEmail("viewer"), "viewer");
  stranger = await signIn(
    await (async () => {
      const email = freshEmail("stranger");
      await tenantWithOwner(email);
      return email;
    })(),
  );
  const created = await createImage(t, { model: "flux-2-pro", prompt: "a lighthouse" });
  expect(created.status, created.text).toBe(202);
  createId = created.headers.get("X-Request-Id") as string;
  await waitFor(t, created.json.task_id);
  const refused = await createImage(t, { model: "flux-2-pro" });
  expect(refused.status).toBe(422);
  refusedId = refused.headers.get("X-Request-Id") as string;
});

describe("the Requests page", () => {
  it("lists the tenant's calls newest first, each linking to its page, and filters by status class", async () => {
    const all = await listed(owner, "", (html) => html.includes(createId) && html.includes(refusedId));
    expect(all).toContain(`href="/console/requests/${createId}"`);
    expect(all.indexOf(refusedId)).toBeLessThan(all.indexOf(createId));
    const refusals = await listed(owner, "?status=4xx", (html) => html.includes(refusedId));
    expect(refusals).not.toContain(createId);
    const bad = await owner.get("/console/requests?status=abc");
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("status must be");
  });

  it("shows a create's attempts and stages on a time line; owners get Run again, viewers only read", async () => {
    const page = await owner.get(`/console/requests/${createId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<ol class="timeline"');
    expect(page.text).toMatch(/<li data-attempt="1">/);
    // After the provider, storing the task's outputs is a bar of its own.
    expect(page.text).toMatch(/<li data-stage="1">[\s\S]*?Storing outputs[\s\S]*?succeeded/);
    expect(page.text).toContain(">Run again</button>");
    expect(page.text).toContain("Run again on another model");

    await listed(viewer, "", (html) => html.includes(createId));
    const seen = await viewer.get(`/console/requests/${createId}`);
    expect(seen.status).toBe(200);
    expect(seen.text).toContain('<ol class="timeline"');
    expect(seen.text).not.toContain("Run again</button>");
    const refused = await viewer.post(`/console/requests/${createId}/run`, { idempotency_key: keyOf(page.text) });
    expect(refused.status).toBe(403);
  });

  it("gives a member of another tenant nothing: not the entry, not the listing, not a run", async () => {
    const page = await stranger.get(`/console/requests/${createId}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain("Not found");
    expect((await stranger.get("/console/requests")).text).not.toContain(createId);
    const run = await stranger.post(`/console/requests/${createId}/run`, { idempotency_key: `console-${crypto.randomUUID()}` });
    expect(run.status).toBe(404);
    expect((await owner.get("/console/requests/req_unknown")).status).toBe(404);
  });

  it("runs a create again as the member, logs it from the console door with replay_of, and shows both results", async () => {
    const page = await owner.get(`/console/requests/${createId}`);
    const ran = await owner.post(`/console/requests/${createId}/run`, { idempotency_key: keyOf(page.text) });
    expect(ran.status, ran.text).toBe(303);
    const newTask = /[?&]task=(task_[0-9a-f]{64})/.exec(ran.location ?? "")?.[1] as string;
    expect(ran.location).toMatch(new RegExp(`^/console/requests/${createId}/compare\\?`));
    await waitFor(t, newTask);
    const compare = await owner.get(ran.location as string);
    expect(compare.status).toBe(200);
    expect(compare.text).toContain(`data-task-id="${newTask}"`);
    expect(compare.text.match(/<figure class="preview preview-image"/g)?.length).toBe(2);

    const userId = await userIdByEmail(env, ownerEmail);
    const [entry] = await logged("CONSOLE POST /console/requests/{request_id}/run", (rows) => rows.length > 0);
    expect(entry).toMatchObject({
      door: "console",
      method: "POST",
      status: 202,
      key_id: `console:${userId}`,
      mode: "live",
      replay_of: createId,
      task_id: newTask,
      model: "flux-2-pro",
    });
    // The same form sent again leads to the same task.
    const again = await owner.post(`/console/requests/${createId}/run`, { idempotency_key: keyOf(page.text) });
    expect(again.location).toContain(`task=${newTask}`);

    // On another model: one the catalog offers for the capability, in the original's mode.
    const other = /<select id="run-model" name="model"[^>]*><option value="([^"]+)"/.exec(page.text)?.[1] as string;
    expect(other).toBeTruthy();
    expect(other).not.toBe("flux-2-pro");
    const moved = await owner.post(`/console/requests/${createId}/run`, {
      idempotency_key: keyOf((await owner.get(`/console/requests/${createId}`)).text),
      model: other,
    });
    expect(moved.status, moved.text).toBe(303);
    const movedTask = /[?&]task=(task_[0-9a-f]{64})/.exec(moved.location ?? "")?.[1] as string;
    expect(movedTask).not.toBe(newTask);
    await logged("CONSOLE POST /console/requests/{request_id}/run", (rows) =>
      rows.some((r) => r.task_id === movedTask && r.model === other && r.replay_of === createId),
    );
  });

  it("logs the new-task form's create from the console door, in the mode chosen", async () => {
    const form = await owner.get("/console/tasks/new?capability=text_to_image");
    const body = new FormData();
    body.set("_csrf", owner.csrf ?? "");
    body.set("capability", "text_to_image");
    body.set("idempotency_key", keyOf(form.text));
    body.set("prompt", "a harbour at night");
    const res = await owner.request("/console/tasks/new", { method: "POST", body, headers: { Origin: BASE } });
    expect(res.status, res.text).toBe(303);
    const taskId = res.location?.split("/").pop();
    const [entry] = await logged("CONSOLE POST /console/tasks/new", (rows) => rows.length > 0);
    expect(entry).toMatchObject({ door: "console", status: 202, mode: "test", task_id: taskId, replay_of: null });
    expect(entry?.key_id).toBe(`console:${await userIdByEmail(env, ownerEmail)}`);
  });
});
