/**
 * Key modes where real upstreams are configured: a test key never reaches them (sandbox only,
 * charged nothing, marked simulated); a live key does, and its envelope carries no simulation mark.
 */
import { describe, expect, it } from "vitest";
import { parseApiKey } from "../../src/keys/api-keys";
import { admin, call, expectError, newTenant } from "../helpers/api";
import { ledger, newKey } from "../helpers/tasks";
import { count, fakeRequests, follow, newTag } from "./harness";

const body = (tag: string) => ({
  model: "flux-2-pro",
  prompt: `a lighthouse #tag:${tag}`,
  canvas: { type: "preset", tier: "1K", aspect: "1:1" },
});

describe("key modes with real providers configured", () => {
  it("runs a test key's task on the sandbox, never on a real upstream, for nothing", async () => {
    const t = await newTenant({ mode: "test", credits: "10" });
    expect(parseApiKey(t.api_key)?.mode).toBe("test");
    const tag = newTag("test-key");
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      body: body(tag),
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status).toBe(202);
    expect(res.json.provider).toMatchObject({ name: "sandbox", simulated: true, mode: "test" });
    expect(res.json.billing.charged_credits).toBe("0");
    const { task } = await follow(t, res.json.task_id);
    expect(task.status).toBe("succeeded");
    expect(task.usage.image_count).toBe(1);
    expect(task.usage.credits).toBe("0");
    for (const p of ["bfl", "fal", "replicate"]) expect(count(await fakeRequests(p, tag), "submit"), p).toBe(0);
    expect(((await ledger(t.tenant_id)) as any).balance).toBe("10");
  });

  it("runs a live key's task on the first configured real route, unmarked", async () => {
    const t = await newTenant();
    const tag = newTag("live-key");
    const res = await call("/v1/images/generations", {
      key: t.api_key,
      body: body(tag),
      headers: { "Idempotency-Key": newKey() },
    });
    expect(res.status).toBe(202);
    expect(res.json.provider).toMatchObject({ name: "bfl", simulated: false, mode: "live" });
    expect(res.json.warnings.map((w: { code: string }) => w.code)).not.toContain("simulated_output");
    const { task } = await follow(t, res.json.task_id);
    expect(task.status).toBe("succeeded");
    expect(count(await fakeRequests("bfl", tag), "submit")).toBe(1);
  });

  it("keeps a live key's real task out of its tenant's test key's reach, and the same Idempotency-Key apart", async () => {
    const t = await newTenant();
    const k = await admin(`/admin/v1/tenants/${t.tenant_id}/api-keys`, { mode: "test" });
    const testKey = { tenant_id: t.tenant_id, api_key: k.json.api_key as string, key_id: k.json.key_id as string };
    const tag = newTag("modes-apart");
    const key = newKey();
    const live = await call("/v1/images/generations", { key: t.api_key, body: body(tag), headers: { "Idempotency-Key": key } });
    expect(live.status).toBe(202);
    expect(live.json.provider).toMatchObject({ name: "bfl", mode: "live" });
    expectError(await call(`/v1/tasks/${live.json.task_id}`, { key: testKey.api_key }), 404, "task_not_found");
    expectError(
      await call(`/v1/tasks/${live.json.task_id}/cancel`, { key: testKey.api_key, method: "POST", body: {} }),
      404,
      "task_not_found",
    );
    // The same key and body under the test key: a simulated task of its own, charged nothing.
    const simulated = await call("/v1/images/generations", {
      key: testKey.api_key,
      body: body(tag),
      headers: { "Idempotency-Key": key },
    });
    expect(simulated.status).toBe(202);
    expect(simulated.json.task_id).not.toBe(live.json.task_id);
    expect(simulated.json.provider).toMatchObject({ name: "sandbox", simulated: true, mode: "test" });
    expect(simulated.json.billing.charged_credits).toBe("0");
    const { task } = await follow(t, live.json.task_id);
    expect(task.status).toBe("succeeded");
    expectError(
      await call(`/v1/artifacts/${task.output.artifacts[0].artifact_id}`, { key: testKey.api_key }),
      404,
      "artifact_not_found",
    );
    expect(count(await fakeRequests("bfl", tag), "submit")).toBe(1);
  });

  it("reads keys made before modes existed as live", () => {
    expect(parseApiKey(`sk_us_${"a".repeat(43)}`)).toMatchObject({ region: "us", mode: "live" });
    expect(parseApiKey(`sk_us_test_${"a".repeat(43)}`)).toMatchObject({ region: "us", mode: "test" });
    expect(parseApiKey(`sk_us_demo_${"a".repeat(43)}`)).toBeNull();
  });

  it("says in the catalog which routes are live for the caller", async () => {
    const live = await newTenant();
    const card = (await call("/v1/catalog/models/flux-2-pro", { key: live.api_key })).json.interfaces.find(
      (i: { capability: string }) => i.capability === "image_edit",
    );
    const byProvider = Object.fromEntries(card.routes.map((r: { provider: string; live: boolean }) => [r.provider, r]));
    expect(byProvider.fal).toMatchObject({ live: true, upstream_model: "fal-ai/flux-2-pro/edit" });
    expect(byProvider.replicate.live).toBe(true);
    expect(byProvider.sandbox.live).toBe(false);
  });
});
