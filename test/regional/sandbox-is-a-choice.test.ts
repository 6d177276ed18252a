/**
 * In a region the sandbox serves test-mode keys only. A live key whose model has no configured real
 * route gets `503 model_unavailable` (concrete) or `no_eligible_model` (auto): never simulated output
 * charged at card prices. (This project's configuration is `[env.us]` with no provider configured.)
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, newTenant } from "../helpers/api";
import { createImage, ledger, newKey, waitFor } from "../helpers/tasks";

const CANVAS = { type: "preset", tier: "1K", aspect: "1:1" };

describe("the sandbox is a choice, never a fallback (region us)", () => {
  it("has no provider configured and does not lend the sandbox to live keys", () => {
    expect(Object.keys(env).filter((k) => /^PROVIDER_.*_API_KEY$/.test(k))).toEqual([]);
    expect(env.SANDBOX_FOR_LIVE_KEYS).toBe("false");
  });

  it("refuses a concrete model for a live key with 503 model_unavailable, reserving nothing", async () => {
    const t = await newTenant({ credits: "100" });
    const res = await createImage(t, { model: "flux-2-pro", prompt: "a red apple", canvas: CANVAS });
    const e = expectError(res, 503, "model_unavailable", "/model");
    expect(e.retryable).toBe(true);
    expect(e.details).toMatchObject({ model: "flux-2-pro", reason: "no_live_route" });
    const l = (await ledger(t.tenant_id)) as any;
    expect(l.totals).toEqual({ granted: "100", captured: "0", reserved: "0" });
    expect((await call("/v1/tasks", { key: t.api_key })).json.data).toEqual([]);
  });

  it("refuses auto for a live key with no_eligible_model naming each candidate's reason", async () => {
    const t = await newTenant();
    const e = expectError(await createImage(t, { prompt: "a red apple", canvas: CANVAS }), 422, "no_eligible_model");
    const failures = e.details.candidate_failures as { model: string; code: string }[];
    expect(failures.length).toBeGreaterThan(3);
    expect(new Set(failures.map((f) => f.code))).toEqual(new Set(["no_live_route"]));
    expect(failures.map((f) => f.model)).toContain("flux-2-pro");
  });

  it("refuses chat for a live key (503) and answers a test key from the sandbox for nothing", async () => {
    const body = { model: "gpt-6-luna", messages: [{ role: "user", content: "hello" }] };
    const live = await newTenant();
    expectError(await call("/v1/chat/completions", { key: live.api_key, body }), 503, "model_unavailable", "/model");
    const test = await newTenant({ mode: "test", credits: "5" });
    const res = await call("/v1/chat/completions", { key: test.api_key, body });
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.content.length).toBeGreaterThan(0);
    expect(res.headers.get("X-Credits-Charged")).toBe("0");
    expect(((await ledger(test.tenant_id)) as any).balance).toBe("5");
  });

  it("runs a test key's task on the sandbox, marked simulated, charged nothing", async () => {
    const t = await newTenant({ mode: "test", credits: "1" });
    expect(t.api_key).toMatch(/^sk_us_test_[0-9A-Za-z]{43}$/);
    const res = await createImage(t, { model: "flux-2-pro", prompt: "a red apple", canvas: CANVAS }, newKey());
    expect(res.status).toBe(202);
    expect(res.json.provider).toMatchObject({ name: "sandbox", simulated: true, mode: "test" });
    expect(res.json.warnings.map((w: { code: string }) => w.code)).toContain("simulated_output");
    const done = await waitFor(t, res.json.task_id);
    expect(done.status).toBe("succeeded");
    expect(done.usage.image_count).toBe(1);
    expect(done.usage.credits).toBe("0");
    expect(done.billing.net_charged_credits).toBe("0");
    expect(((await ledger(t.tenant_id)) as any).balance).toBe("1");
  });

  it("shows a live key that no route is live, and a test key that the sandbox route is", async () => {
    const live = await newTenant();
    const card = (await call("/v1/catalog/models/flux-2-pro", { key: live.api_key })).json.interfaces[0];
    expect(card.available).toBe(false);
    expect(card.routes.every((r: { live: boolean }) => !r.live)).toBe(true);
    const test = await newTenant({ mode: "test" });
    const testCard = (await call("/v1/catalog/models/flux-2-pro", { key: test.api_key })).json.interfaces[0];
    expect(testCard.available).toBe(true);
    expect(testCard.routes.filter((r: { live: boolean }) => r.live).map((r: { provider: string }) => r.provider)).toEqual([
      "sandbox",
    ]);
  });
});
