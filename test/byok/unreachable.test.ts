/**
 * A tenant's key whose host cannot be reached: a submission that never left the machine (the host
 * name does not resolve) is certain not to have been taken, so the task moves to its next route as
 * for a refusal, rather than ending as an interrupted submission the provider cannot be asked about.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { newKey, taskStub } from "../helpers/tasks";
import { fakeRequests, follow, newTag } from "../providers/harness";
import { addKey, createImageTask, manager, storedRoutes } from "./helpers";

/** The stored key's host, moved as a test cannot through the API (a PUT checks the key there first). */
async function moveKeyHost(tenantId: string, provider: string, baseUrl: string) {
  await runInDurableObject(env.ACCOUNTS.getByName(tenantId), (_o, state) => {
    state.storage.sql.exec("UPDATE provider_keys SET base_url = ? WHERE provider = ?", baseUrl, provider);
  });
}

async function routeFailures(taskId: string): Promise<any[]> {
  return runInDurableObject(taskStub(taskId), (_o, state) => {
    const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task WHERE id = 1").one();
    return JSON.parse(row.record).route_failures;
  });
}

describe("a tenant's key whose host cannot be reached", () => {
  it("prefer on fal, host not found: the task moves to the platform's next route and succeeds", async () => {
    const t = await manager();
    await addKey(t, "fal", { mode: "prefer" });
    await moveKeyHost(t.tenant_id, "fal", "https://nonexistent.invalid");
    const tag = newTag("byok-unreachable-fal");
    const created = await createImageTask(t, "flux-2-pro", tag);
    expect(await storedRoutes(created.task_id)).toEqual(["fal:tenant", "bfl:platform", "fal:platform", "replicate:platform"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider).toMatchObject({ name: "bfl", key: "platform" });
    const failures = await routeFailures(created.task_id);
    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) {
      expect(f).toMatchObject({ provider: "fal", key: "tenant", code: "model_unavailable" });
      expect(f.message).toMatch(/could not be reached: the host name nonexistent\.invalid did not resolve \(dns_failed\)/);
      expect(f.message).not.toMatch(/reference/);
    }
    // Nothing reached fal's fake: the tenant's requests went nowhere, and the platform's fal route was not needed.
    expect(await fakeRequests("fal", tag)).toEqual([]);
  });

  it("prefer on luma (a provider that cannot be asked about a lost submission): moves on rather than failing", async () => {
    const t = await manager();
    await addKey(t, "luma", { mode: "prefer" });
    await moveKeyHost(t.tenant_id, "luma", "https://nonexistent.invalid");
    const tag = newTag("byok-unreachable-luma");
    const res = await call("/v1/videos/text-to-video", {
      key: t.api_key,
      body: {
        model: "luma-ray-3.2",
        prompt: `A lighthouse at dawn #tag:${tag}`,
        duration: 5,
        aspect_ratio: "16:9",
        resolution: "720p",
      },
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect((await storedRoutes(res.json.task_id))[0]).toBe("luma:tenant");
    const { task } = await follow(t, res.json.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider).toMatchObject({ name: "luma", key: "platform" });
  });
});
