/**
 * Routing on a tenant's own keys: `prefer` runs the provider's routes on the tenant's key before
 * the platform's routes, `fallback` after them, `only` never on the platform's key for that
 * provider (other providers stay unless `failover: false`); a key with `models` serves those only.
 * The fakes record the credential of every request: the tenant's key reaches only its provider,
 * only for its own tasks; another tenant on the same route, and a test-mode key, use the platform's.
 */
import { describe, expect, it } from "vitest";
import { call, newTenant } from "../helpers/api";
import { count, fakeRequests, follow, newTag } from "../providers/harness";
import { addKey, createImageTask, manager, platformAuth, storedRoutes, tenantAuth } from "./helpers";

describe("the order of a task's routes", () => {
  it("prefer: the tenant's fal key first, on every call of the job; another tenant at the same time gets the platform's", async () => {
    const t = await manager();
    const other = await manager();
    const key = await addKey(t, "fal", { mode: "prefer" });
    const tag = newTag("byok-prefer");
    const otherTag = newTag("byok-prefer-other");
    const [mine, theirs] = await Promise.all([
      createImageTask(t, "flux-2-pro", tag),
      createImageTask(other, "flux-2-pro", otherTag, ["#fake:down@bfl"]),
    ]);
    expect(await storedRoutes(mine.task_id)).toEqual(["fal:tenant", "bfl:platform", "fal:platform", "replicate:platform"]);
    expect(await storedRoutes(theirs.task_id)).toEqual(["bfl:platform", "fal:platform", "replicate:platform"]);
    const { task } = await follow(t, mine.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider).toMatchObject({ name: "fal", key: "tenant" });
    // Submit, status reads and the result: all on the tenant's key, nothing reached another provider.
    const sent = await fakeRequests("fal", tag);
    expect(count(sent, "submit")).toBe(1);
    expect(sent.filter((r) => r.kind !== "download").map((r) => r.authorization)).toEqual(
      sent.filter((r) => r.kind !== "download").map(() => tenantAuth("fal", key)),
    );
    expect(await fakeRequests("bfl", tag)).toEqual([]);
    expect(await fakeRequests("replicate", tag)).toEqual([]);

    // The other tenant's task on the same route (bfl down, so fal serves it): the platform's key.
    const other_ = await follow(other, theirs.task_id);
    expect(other_.task.status).toBe("succeeded");
    expect(other_.task.provider).toMatchObject({ name: "fal", key: "platform" });
    const theirAuths = (await fakeRequests("fal", otherTag)).filter((r) => r.kind !== "download").map((r) => r.authorization);
    expect(theirAuths.length).toBeGreaterThan(0);
    expect(new Set(theirAuths)).toEqual(new Set([platformAuth("fal")]));
  });

  it("fallback: the platform's routes first; the tenant's key last", async () => {
    const t = await manager();
    const key = await addKey(t, "fal", { mode: "fallback" });
    const tag = newTag("byok-fallback");
    const created = await createImageTask(t, "flux-2-pro", tag);
    expect(await storedRoutes(created.task_id)).toEqual(["bfl:platform", "fal:platform", "replicate:platform", "fal:tenant"]);
    const { task } = await follow(t, created.task_id);
    expect(task.provider).toMatchObject({ name: "bfl", key: "platform" });
    expect(await fakeRequests("fal", tag)).toEqual([]);
    expect(JSON.stringify(task)).not.toContain(key);
  });

  it("only: never the platform's key for that provider; other providers stay unless failover is off", async () => {
    const t = await manager();
    await addKey(t, "fal", { mode: "only" });
    const open = await createImageTask(t, "flux-2-pro", newTag("byok-only"));
    expect(await storedRoutes(open.task_id)).toEqual(["fal:tenant", "bfl:platform", "replicate:platform"]);

    await addKey(t, "fal", { mode: "only", failover: false });
    const tag = newTag("byok-only-closed");
    const closed = await createImageTask(t, "flux-2-pro", tag, ["#fake:down@fal"]);
    expect(await storedRoutes(closed.task_id)).toEqual(["fal:tenant"]);
    const { task } = await follow(t, closed.task_id);
    // fal is down for everyone: the task fails on the tenant's key, never tried on the platform's or elsewhere.
    expect(task.status).toBe("failed");
    expect(task.provider).toMatchObject({ name: "fal", key: "tenant" });
    const sent = await fakeRequests("fal", tag);
    expect(count(sent, "submit")).toBe(3);
    expect(sent.some((r) => r.authorization === platformAuth("fal"))).toBe(false);
    expect(await fakeRequests("bfl", tag)).toEqual([]);
    expect(await fakeRequests("replicate", tag)).toEqual([]);
    expect(task.billing.net_charged_credits).toBe("0");
  });

  it("a key listing models serves those models only", async () => {
    const t = await manager();
    await addKey(t, "fal", { mode: "prefer", models: ["gpt-image-2"] });
    const flux = await createImageTask(t, "flux-2-pro", newTag("byok-models-flux"));
    expect(await storedRoutes(flux.task_id)).toEqual(["bfl:platform", "fal:platform", "replicate:platform"]);
    const gpt = await createImageTask(t, "gpt-image-2", newTag("byok-models-gpt"));
    expect(await storedRoutes(gpt.task_id)).toEqual(["fal:tenant", "openai:platform", "fal:platform"]);
  });

  it("a removed key is used no more", async () => {
    const t = await manager();
    await addKey(t, "fal", { mode: "prefer" });
    expect((await call("/v1/provider-keys/fal", { key: t.api_key, method: "DELETE" })).status).toBe(200);
    const created = await createImageTask(t, "flux-2-pro", newTag("byok-removed"));
    expect(await storedRoutes(created.task_id)).toEqual(["bfl:platform", "fal:platform", "replicate:platform"]);
  });

  it("a test-mode key never uses the tenant's provider key", async () => {
    const live = await manager();
    await addKey(live, "fal", { mode: "only", failover: false });
    const res = await call(`/admin/v1/tenants/${live.tenant_id}/api-keys`, {
      key: "test-admin-token-0123456789abcdef",
      body: { mode: "test" },
    });
    expect(res.status).toBe(201);
    const testKey = { ...live, api_key: res.json.api_key, key_id: res.json.key_id };
    const tag = newTag("byok-test-mode");
    const created = await createImageTask(testKey, "flux-2-pro", tag);
    expect(await storedRoutes(created.task_id)).toEqual(["sandbox:platform"]);
    const { task } = await follow(testKey, created.task_id);
    expect(task.provider).toMatchObject({ name: "sandbox", key: "platform", mode: "test" });
    expect(await fakeRequests("fal", tag)).toEqual([]);
    // And a tenant with no key at all is unchanged.
    const plain = await newTenant();
    const p = await createImageTask(plain, "flux-2-pro", newTag("byok-none"));
    expect(await storedRoutes(p.task_id)).toEqual(["bfl:platform", "fal:platform", "replicate:platform"]);
  });
});
