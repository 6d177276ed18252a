/**
 * Route health through the real paths: tasks whose upstream fails for two tenants open the route's
 * circuit; then a create for that model is refused before anything is reserved (503
 * all_routes_unhealthy with Retry-After), `auto` chooses another model, the catalog and
 * /v1/status show it down with its incident; after the open time one real submission (the probe)
 * closes it. An outage of the sandbox's route (for every caller, asked by no request) is the failing
 * upstream.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { OPEN_MS } from "../../src/health/circuit";
import type { RouteOutcome } from "../../src/health/outcomes";
import { keepSnapshot } from "../../src/health/snapshot";
import { forgetStatus } from "../../src/health/status";
import { setSandboxOutage } from "../../src/providers/sandbox/adapter";
import { call, expectError, newTenant } from "../helpers/api";
import { createImage, ledger, waitFor } from "../helpers/tasks";
import { closeAllRoutes } from "./close";

async function statusNow() {
  forgetStatus();
  const res = await call("/v1/status");
  expect(res.status).toBe(200);
  return res;
}

// The routes opened here are closed for the test files that follow.
afterAll(() => closeAllRoutes("sandbox"));

describe("a route failing for everyone", () => {
  it("opens after the threshold, refuses the model before reserving, steers auto away, and shows on the status page", async () => {
    const a = await newTenant({ credits: "1000" });
    const b = await newTenant({ credits: "1000" });
    // The model `auto` chooses for this request when every route is healthy.
    const first = await createImage(a, { model: "auto", prompt: "a calm lake" });
    expect(first.status).toBe(202);
    const model = first.json.resolved_model as string;
    await waitFor(a, first.json.task_id);

    // Five failed jobs from each tenant: each is one accepted submission and one provider-side job failure.
    setSandboxOutage(model, "provider_error");
    try {
      for (let i = 0; i < 5; i++) {
        for (const t of [a, b]) {
          const res = await createImage(t, { model, prompt: "an upstream that fails" });
          expect(res.status, JSON.stringify(res.json)).toBe(202);
          const done = await waitFor(t, res.json.task_id);
          expect(done.status).toBe("failed");
        }
      }
    } finally {
      setSandboxOutage(model, null);
    }
    // A task's failure reaches route health at the end of the run that met it, just after the task
    // shows it: the circuit is open once the health object says so.
    await expect
      .poll(async () => (await env.HEALTH.getByName("sandbox").status()).routes.find((r) => r.upstream_model === model)?.state)
      .toBe("open");

    const before = (await ledger(b.tenant_id)) as any;
    const refused = await createImage(b, { model, prompt: "a calm lake" });
    expectError(refused, 503, "model_unavailable", "/model");
    expect(refused.json.error.details).toMatchObject({ model, reason: "all_routes_unhealthy" });
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(OPEN_MS / 1000);
    // Nothing was reserved for the refused create.
    expect(((await ledger(b.tenant_id)) as any).totals).toEqual(before.totals);

    const steered = await createImage(a, { model: "auto", prompt: "a calm lake" });
    expect(steered.status, JSON.stringify(steered.json)).toBe(202);
    expect(steered.json.resolved_model).not.toBe(model);

    const card = await call(`/v1/catalog/models/${model}`, { key: a.api_key });
    const routes = card.json.interfaces.find((i: any) => i.capability === "text_to_image").routes;
    expect(routes.find((r: any) => r.provider === "sandbox").health).toBe("down");

    const status = await statusNow();
    expect(status.headers.get("Cache-Control")).toBe("public, max-age=10");
    const body = status.json;
    expect(body.models.find((m: any) => m.model === model).state).toBe("down");
    expect(body.open_circuits).toContainEqual(
      expect.objectContaining({ provider: "sandbox", upstream_model: model, state: "open" }),
    );
    const incident = body.incidents.find((i: any) => i.upstream_model === model);
    expect(incident).toMatchObject({ provider: "sandbox", ended_at: null, failures: 10, codes: { model_request_failed: 10 } });
    expect(incident.models).toContain(model);
    expect(incident.what_failed).toContain("model_request_failed ×10");
    const sandbox = body.providers.find((p: any) => p.provider === "sandbox");
    expect(sandbox.state).toBe("degraded");
    expect(sandbox.windows["5m"].attempts).toBeGreaterThanOrEqual(11);
  });

  it("after the open time, one real submission probes the route and its acceptance closes it", async () => {
    const a = await newTenant({ credits: "1000" });
    const model = "seedream-4.0";
    // Clock injected: ten failures from two tenants stamped OPEN_MS + 1 s ago, so the retry time has passed.
    const then = Date.now() - OPEN_MS - 1000;
    const outcomes: RouteOutcome[] = Array.from({ length: 10 }, (_, i) => ({
      provider: "sandbox",
      upstream_model: model,
      tenant_id: i % 2 ? "ten_x" : "ten_y",
      task_id: `task_${i}`,
      kind: "submit_refused",
      fault: "provider",
      code: "model_unavailable",
      http_status: 503,
      at: then + i,
    }));
    const health = env.HEALTH.getByName("sandbox");
    const snap = await health.report(outcomes, then + 10);
    expect(snap.routes[model]?.state).toBe("open");
    keepSnapshot("sandbox", await health.snapshot());
    expect((await statusNow()).json.open_circuits).toContainEqual(
      expect.objectContaining({ upstream_model: model, state: "half_open" }),
    );
    // Half-open: admitted (a probe is due), and its accepted submission closes the circuit.
    const probe = await createImage(a, { model, prompt: "the probe" });
    expect(probe.status, JSON.stringify(probe.json)).toBe(202);
    const done = await waitFor(a, probe.json.task_id);
    expect(done.status).toBe("succeeded");
    // The probe's outcome is reported when its alarm's run ends, just after the task shows its end.
    await expect.poll(async () => (await health.snapshot()).routes[model]?.state).toBe("closed");
    const status = (await statusNow()).json;
    const after = status.models.find((m: any) => m.model === model);
    expect(after.routes).toEqual([{ provider: "sandbox", upstream_model: model, state: "operational" }]);
    // Its recent failures still weigh on its success rate over 5 minutes.
    expect(after.state).toBe("degraded");
    const incident = status.incidents.find((i: any) => i.upstream_model === model);
    expect(incident.ended_at).not.toBeNull();
  });
});
