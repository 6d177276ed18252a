/**
 * Storage destinations in the console: owners and developers add (verified, the bucket's refusal
 * shown on the page), list (the key pair as its last 4 characters), make default and delete them;
 * viewers cannot. The task page shows the delivery and "Deliver again" when it failed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { admin, type TestTenant } from "../helpers/api";
import { type Browser, freshEmail, inviteAndSignIn, signIn, tenantWithOwner } from "../helpers/console";
import { createImage, fastForward, getTask } from "../helpers/tasks";
import { denyWrites, destinationBody, newBucket, objectsIn } from "./s3";

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

const formToken = (html: string) => /name="_form" value="([0-9A-Za-z]{22})"/.exec(html)?.[1] ?? "";

async function add(who: Browser, fields: Record<string, string>) {
  const page = await who.get("/console/storage");
  const posted = await who.post("/console/storage", { ...fields, _form: formToken(page.text) });
  return posted.status === 303 && posted.location ? { posted, page: await who.get(posted.location) } : { posted, page: posted };
}

function asForm(body: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)]));
}

describe("the storage page", () => {
  it("a developer adds a destination, sees only its last 4 characters, makes it default and deletes it", async () => {
    const b = await newBucket();
    const refused = await add(
      developer,
      asForm(destinationBody(b, { secret_access_key: "not-the-secret-000000000000000000000000" })),
    );
    expect(refused.posted.status).toBe(422);
    expect(refused.page.text).toContain("SignatureDoesNotMatch");
    const { posted, page } = await add(developer, asForm(destinationBody(b, { prefix: "console" })));
    expect(posted.status, posted.text).toBe(303);
    expect(page.text).toContain("verified and added");
    const id = /data-destination-id="(dst_[0-9a-z]+)"/.exec(page.text)?.[1] as string;
    expect(id).toBeTruthy();
    expect(page.text).toContain(`…${b.secret_access_key.slice(-4)}`);
    expect(page.text).not.toContain(b.secret_access_key);
    expect(page.text).not.toContain(b.access_key_id);
    const made = await developer.post(`/console/storage/${id}/default`, {});
    expect(made.status).toBe(303);
    expect((await developer.get("/console/storage")).text).toContain(`data-destination-id="${id}" data-default="true"`);
    const deleted = await developer.post(`/console/storage/${id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect((await developer.get("/console/storage")).text).not.toContain(`data-destination-id="${id}"`);
  });

  it("refuses a malformed field as the API does", async () => {
    const b = await newBucket();
    const { posted, page } = await add(developer, asForm(destinationBody(b, { bucket: "Not A Bucket" })));
    expect(posted.status).toBe(422);
    expect(page.text).toContain("/bucket");
  });

  it("is not open to viewers", async () => {
    expect((await viewer.get("/console/storage")).status).toBe(403);
    expect((await viewer.post("/console/storage", asForm(destinationBody(await newBucket())))).status).toBe(403);
  });
});

describe("the task page's delivery", () => {
  it("shows what failed and delivers again", async () => {
    const k = await admin(`/admin/v1/tenants/${tenant.tenant_id}/api-keys`, {
      permissions: ["tasks:read", "tasks:write", "storage:manage"],
    });
    const t: TestTenant = { tenant_id: tenant.tenant_id, api_key: k.json.api_key, key_id: k.json.key_id };
    const b = await newBucket();
    const { page } = await add(developer, asForm(destinationBody(b)));
    const id = /data-destination-id="(dst_[0-9a-z]+)"/.exec(page.text)?.[1] as string;
    await denyWrites(b);
    const taskId = (await createImage(t, { prompt: "console delivery", output_destination_id: id })).json.task_id;
    for (let i = 0; i < 20 && (await getTask(t, taskId)).json.status !== "succeeded"; i++) await fastForward(taskId);
    const before = await developer.get(`/console/tasks/${taskId}`);
    expect(before.text).toContain('data-delivery-status="failed"');
    expect(before.text).toContain("AccessDenied");
    expect(before.text).toContain("Deliver again");
    expect((await viewer.get(`/console/tasks/${taskId}`)).text).not.toContain("Deliver again");
    await denyWrites(b, false);
    const again = await developer.post(`/console/tasks/${taskId}/deliveries`, {});
    expect(again.status).toBe(303);
    const after = await developer.get(again.location as string);
    expect(after.text).toContain('data-delivery-status="delivered"');
    expect(after.text).toContain(`data-delivered-key="${taskId}/0.png"`);
    expect((await objectsIn(b)).map((o) => o.key)).toEqual([`${taskId}/0.png`]);
  });
});
