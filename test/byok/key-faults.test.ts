/**
 * A tenant's key the provider refuses on a task (401, 403, quota): with `only` the task fails,
 * `provider_key_rejected`; with prefer or fallback it moves on at once. Either way the key becomes
 * `invalid`, its owners are mailed once, and the failure is marked as the tenant's key's, so it
 * never counts against the route for others.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, call, expectError } from "../helpers/api";
import { freshEmail, tenantWithOwner } from "../helpers/console";
import { taskStub } from "../helpers/tasks";
import { count, fakeRequests, follow, newTag } from "../providers/harness";
import { addKey, createImageTask, revokeAtProvider, storedRoutes, tenantAuth } from "./helpers";

/** A tenant with an owner to mail, and a key that manages provider keys and creates tasks. */
async function ownedTenant() {
  const email = freshEmail("byok-owner");
  const { tenant_id } = await tenantWithOwner(email);
  const k = await admin(`/admin/v1/tenants/${tenant_id}/api-keys`, {
    permissions: ["tasks:read", "tasks:write", "providers:manage"],
  });
  expect(k.status).toBe(201);
  return { email, t: { tenant_id, api_key: k.json.api_key as string, key_id: k.json.key_id as string } };
}

const mails = async (email: string) =>
  (await admin(`/admin/v1/outbox?to=${encodeURIComponent(email)}`)).json.data.filter((m: any) =>
    m.subject.includes("key was refused"),
  );

async function routeFailures(taskId: string): Promise<any[]> {
  return runInDurableObject(taskStub(taskId), (_o, state) => {
    const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task WHERE id = 1").one();
    return JSON.parse(row.record).route_failures;
  });
}

describe("a tenant's key refused by its provider", () => {
  it("with only: the task fails provider_key_rejected, the key is invalid, the owners are mailed once", async () => {
    const { t, email } = await ownedTenant();
    const key = await addKey(t, "fal", { mode: "only" });
    await revokeAtProvider("fal", key);
    const tags = [newTag("byok-rejected-a"), newTag("byok-rejected-b")];
    // Two tasks refused at once: one mail all the same.
    const created = await Promise.all(tags.map((tag) => createImageTask(t, "flux-2-pro", tag)));
    for (const [i, c] of created.entries()) {
      const { task } = await follow(t, c.task_id);
      expect(task.status).toBe("failed");
      expect(task.error).toMatchObject({
        code: "model_request_failed",
        details: { reason: "provider_key_rejected", provider: "fal" },
      });
      expect(task.billing.net_charged_credits).toBe("0");
      // One refusal: the same key is not tried again, and no other route ran the job.
      const sent = await fakeRequests("fal", tags[i] as string);
      expect(sent.filter((r) => r.kind === "submit").map((r) => r.authorization)).toEqual([tenantAuth("fal", key)]);
      expect(await fakeRequests("bfl", tags[i] as string)).toEqual([]);
      expect(JSON.stringify(task)).not.toContain(key);
      // Marked as the tenant's key's failure, for route health to leave out.
      expect(await routeFailures(c.task_id)).toMatchObject([{ provider: "fal", key: "tenant" }]);
    }
    const list = (await call("/v1/provider-keys", { key: t.api_key })).json.data;
    expect(list).toMatchObject([{ provider: "fal", status: "invalid", status_reason: expect.stringContaining("401") }]);
    await expect.poll(async () => (await mails(email)).length).toBe(1);
    expect(JSON.stringify(await mails(email))).not.toContain(key);

    // Invalid, it serves nothing; `only` still keeps the platform's key off fal.
    const next = await createImageTask(t, "flux-2-pro", newTag("byok-after-invalid"));
    expect(await storedRoutes(next.task_id)).toEqual(["bfl:platform", "replicate:platform"]);

    // Replaced, it is active again (and would be mailed about again).
    const fresh = await addKey(t, "fal", { mode: "only" });
    expect((await call("/v1/provider-keys", { key: t.api_key })).json.data).toMatchObject([
      { status: "active", status_reason: null, last4: fresh.slice(-4) },
    ]);
  });

  it("with only and failover off: once invalid, no route is left and creates are refused", async () => {
    const { t } = await ownedTenant();
    const key = await addKey(t, "fal", { mode: "only", failover: false });
    await revokeAtProvider("fal", key);
    const first = await createImageTask(t, "flux-2-pro", newTag("byok-closed-rejected"));
    expect((await follow(t, first.task_id)).task.error.details.reason).toBe("provider_key_rejected");
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      body: { model: "flux-2-pro", prompt: "a lighthouse", canvas: { type: "preset", tier: "1K", aspect: "1:1" } },
      headers: { "Idempotency-Key": `byok-closed-${Date.now()}` },
    });
    expectError(res, 503, "model_unavailable");
  });

  it("with prefer: the task moves on to the platform's routes at once", async () => {
    const { t, email } = await ownedTenant();
    const key = await addKey(t, "fal", { mode: "prefer" });
    await revokeAtProvider("fal", key);
    const tag = newTag("byok-rejected-prefer");
    const created = await createImageTask(t, "flux-2-pro", tag);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider).toMatchObject({ name: "bfl", key: "platform" });
    expect(task.provider.failed_attempts).toMatchObject([{ provider: "fal" }]);
    expect(count(await fakeRequests("fal", tag), "submit")).toBe(1);
    expect(await routeFailures(created.task_id)).toMatchObject([{ provider: "fal", key: "tenant" }]);
    // Charged as the platform's route prices it: no fee line.
    expect(task.usage.lines.some((l: any) => l.meter === "byok_fee")).toBe(false);
    expect((await call("/v1/provider-keys", { key: t.api_key })).json.data).toMatchObject([{ status: "invalid" }]);
    await expect.poll(async () => (await mails(email)).length).toBe(1);
  });

  it("a key removed while a task runs on it: the task ends at its next call, nothing charged", async () => {
    const { t } = await ownedTenant();
    await addKey(t, "fal", { mode: "prefer" });
    const created = await createImageTask(t, "flux-2-pro", newTag("byok-removed-running"), ["#fake:slow"]);
    await follow(
      t,
      created.task_id,
      (x) => x.status === "running" || (x.progress?.stage === "queued" && x.progress?.percent >= 1),
    );
    expect((await call("/v1/provider-keys/fal", { key: t.api_key, method: "DELETE" })).status).toBe(200);
    const { task } = await follow(t, created.task_id);
    expect(task.status).toBe("failed");
    expect(task.error).toMatchObject({ code: "model_unavailable", message: expect.stringContaining("removed or refused") });
    expect(task.billing.net_charged_credits).toBe("0");
  });

  it("an OpenAI account out of quota: the key is invalid and the task moves to the platform's OpenAI route", async () => {
    const { t, email } = await ownedTenant();
    const key = await addKey(t, "openai", { mode: "prefer" });
    await revokeAtProvider("openai", key, "quota");
    const tag = newTag("byok-quota");
    const created = await createImageTask(t, "gpt-image-2", tag);
    expect(await storedRoutes(created.task_id)).toEqual(["openai:tenant", "openai:platform", "fal:platform"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider).toMatchObject({ name: "openai", key: "platform" });
    expect(await routeFailures(created.task_id)).toMatchObject([{ provider: "openai", key: "tenant" }]);
    expect((await call("/v1/provider-keys", { key: t.api_key })).json.data).toMatchObject([
      { provider: "openai", status: "invalid", status_reason: expect.stringContaining("exceeded your current quota") },
    ]);
    await expect.poll(async () => (await mails(email)).length).toBe(1);
  });
});
