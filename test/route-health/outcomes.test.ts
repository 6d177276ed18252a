/**
 * What counts against a route: a job that hangs to its deadline and an output that cannot be read
 * (an outage of the sandbox's route, asked by no request) are the provider's failures; a request
 * refused for itself, a failure the request asked for and a tenant's own key refused are never
 * counted, however many tenants send them. The health object is read directly.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import type { RouteOutcome } from "../../src/health/outcomes";
import { setSandboxOutage } from "../../src/providers/sandbox/adapter";
import { newTenant } from "../helpers/api";
import { createImage, fastForward, waitFor } from "../helpers/tasks";
import { closeAllRoutes } from "./close";

const health = () => env.HEALTH.getByName("sandbox");

async function route(model: string) {
  return (await health().status()).routes.find((r) => r.upstream_model === model);
}

// The routes opened here are closed for the test files that follow.
afterAll(() => closeAllRoutes("sandbox"));

describe("outcomes of the sandbox's routes", () => {
  it("counts a job that hangs past its deadline as the provider's failure", async () => {
    const t = await newTenant({ credits: "1000" });
    const model = "flux-2-max";
    setSandboxOutage(model, "hang");
    let done: any;
    try {
      const res = await createImage(t, { model, prompt: "a stall" });
      expect(res.status, JSON.stringify(res.json)).toBe(202);
      await waitFor(t, res.json.task_id, (x) => x.status === "running");
      await fastForward(res.json.task_id, (rec) => {
        rec.deadline_at = new Date(Date.now() - 1000).toISOString();
      });
      // Its alarm runs also report to the provider's health object, shared by every test file running
      // now: under a full run's load the end may take longer than one waitFor's patience.
      for (let i = 0; i < 5 && !done; i++) done = await waitFor(t, res.json.task_id).catch(() => undefined);
    } finally {
      setSandboxOutage(model, null);
    }
    expect(done?.error?.code).toBe("model_timeout");
    await expect.poll(async () => (await route(model))?.windows["5m"].failed).toBe(1);
    const w = (await route(model))?.windows["5m"];
    expect(w).toMatchObject({ accepted: 1, completed: 0, failed: 1, first_progress: 1 });
  });

  it("counts an output that cannot be downloaded as an output failure of the provider", async () => {
    const t = await newTenant({ credits: "1000" });
    const model = "flux-kontext-pro";
    setSandboxOutage(model, "output_download");
    try {
      const res = await createImage(t, { model, prompt: "a lost file" });
      expect(res.status, JSON.stringify(res.json)).toBe(202);
      const done = await waitFor(t, res.json.task_id);
      expect(done.status).toBe("failed");
    } finally {
      setSandboxOutage(model, null);
    }
    await expect.poll(async () => (await route(model))?.windows["5m"].output_failed).toBe(1);
    expect((await route(model))?.windows["5m"]).toMatchObject({ failed: 1, completed: 0 });
  });

  it("counts a hang and a lost output the request asked for as the request's, never the provider's", async () => {
    const t = await newTenant({ credits: "1000" });
    const model = "flux-pro-1.1-ultra";
    const lost = await createImage(t, { model, prompt: "a lost file", metadata: { sandbox_fault: "output_download" } });
    const stall = await createImage(t, { model, prompt: "a stall", metadata: { sandbox_fault: "hang" } });
    expect([lost.status, stall.status], JSON.stringify([lost.json, stall.json])).toEqual([202, 202]);
    expect((await waitFor(t, lost.json.task_id)).status).toBe("failed");
    await waitFor(t, stall.json.task_id, (x) => x.status === "running");
    await fastForward(stall.json.task_id, (rec) => {
      rec.deadline_at = new Date(Date.now() - 1000).toISOString();
    });
    let done: any;
    for (let i = 0; i < 5 && !done; i++) done = await waitFor(t, stall.json.task_id).catch(() => undefined);
    expect(done?.error?.code).toBe("model_timeout");
    await expect.poll(async () => (await route(model))?.windows["5m"].request_refused).toBe(2);
    expect((await route(model))?.windows["5m"]).toMatchObject({ accepted: 2, failed: 0, output_failed: 0 });
  });

  it("never opens on refusals of the request or of tenants' own keys, from however many tenants", async () => {
    const now = Date.now();
    const refusals = (fault: "request" | "tenant_key", code: string, status: number): RouteOutcome[] =>
      Array.from({ length: 20 }, (_, i) => ({
        provider: "sandbox",
        upstream_model: "gpt-image-2",
        tenant_id: `ten_${i % 4}`,
        task_id: `task_${fault}_${i}`,
        kind: "submit_refused",
        fault,
        code,
        http_status: status,
        at: now + i,
      }));
    const snap = await health().report([
      ...refusals("tenant_key", "model_request_failed", 401),
      ...refusals("request", "invalid_request", 422),
    ]);
    expect(snap.routes["gpt-image-2"]?.state ?? "closed").toBe("closed");
    const w = (await route("gpt-image-2"))?.windows["5m"];
    expect(w).toMatchObject({ failed: 0, refused: 0, request_refused: 40 });
    // The same number of provider-side refusals from two tenants opens it.
    const provider = refusals("request", "model_unavailable", 503)
      .slice(0, 10)
      .map((o) => ({ ...o, fault: "provider" as const, task_id: `${o.task_id}_p`, at: now + 100 }));
    expect((await health().report(provider)).routes["gpt-image-2"]?.state).toBe("open");
  });
});
