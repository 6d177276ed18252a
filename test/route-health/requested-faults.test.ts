/**
 * A failure the request asked for (a sandbox fault in its metadata) is the request's, like a safety
 * refusal, and test-mode traffic's failures are the caller's or the service's own: neither counts
 * toward a circuit. So however many tenants send them, another tenant's create for the same model is
 * admitted and served.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { setSandboxOutage } from "../../src/providers/sandbox/adapter";
import { newTenant } from "../helpers/api";
import { createImage, waitFor } from "../helpers/tasks";
import { closeAllRoutes } from "./close";

const health = () => env.HEALTH.getByName("sandbox");

async function window5m(model: string) {
  return (await health().status()).routes.find((r) => r.upstream_model === model)?.windows["5m"];
}

// Whatever a failing run of this file opened is closed for the files that follow.
afterAll(() => closeAllRoutes("sandbox"));

describe("failures that never open a circuit", () => {
  it("faults the callers asked for, from several tenants, never refuse another tenant's create", async () => {
    const model = "seedream-4.5";
    const a = await newTenant({ credits: "1000" });
    const b = await newTenant({ credits: "1000" });
    const c = await newTenant({ credits: "1000" });
    // Twelve jobs failing as asked, from two tenants: as provider failures they would open the route.
    for (let i = 0; i < 6; i++) {
      for (const [t, fault] of [
        [a, "provider_error"],
        [b, "rate_limited"],
      ] as const) {
        const res = await createImage(t, { model, prompt: "a failure asked for", metadata: { sandbox_fault: fault } });
        expect(res.status, JSON.stringify(res.json)).toBe(202);
        expect((await waitFor(t, res.json.task_id)).status).toBe("failed");
      }
    }
    // Every outcome has reached the route's health object: twelve accepted submissions.
    await expect.poll(async () => (await window5m(model))?.accepted).toBeGreaterThanOrEqual(12);

    // Another tenant, and the senders themselves, asking for no fault: admitted and served.
    for (const t of [c, a]) {
      const res = await createImage(t, { model, prompt: "no fault asked" });
      expect(res.status, JSON.stringify(res.json)).toBe(202);
      expect((await waitFor(t, res.json.task_id)).status).toBe("succeeded");
    }
    // The route's record shows them as the requests' own failures, and its circuit stayed closed.
    expect(await window5m(model)).toMatchObject({ failed: 0, request_refused: 12 });
    expect((await health().snapshot()).routes[model]?.state ?? "closed").toBe("closed");
  });

  it("test-mode traffic failing for two tenants never opens a circuit another tenant's test key meets", async () => {
    const model = "gpt-image-2.6-flare";
    const a = await newTenant({ credits: "1000", mode: "test" });
    const b = await newTenant({ credits: "1000", mode: "test" });
    const c = await newTenant({ credits: "1000", mode: "test" });
    // The sandbox's route fails for everyone (no request asks for it): test-mode jobs of two tenants fail.
    setSandboxOutage(model, "provider_error");
    try {
      for (let i = 0; i < 6; i++) {
        for (const t of [a, b]) {
          const res = await createImage(t, { model, prompt: "a test that fails" });
          expect(res.status, JSON.stringify(res.json)).toBe(202);
          expect((await waitFor(t, res.json.task_id)).status).toBe("failed");
        }
      }
    } finally {
      setSandboxOutage(model, null);
    }
    // Every outcome has reached the route's health object: the failures are shown, never counted.
    await expect.poll(async () => (await window5m(model))?.failed).toBe(12);

    const res = await createImage(c, { model, prompt: "another tenant's test" });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect((await waitFor(c, res.json.task_id)).status).toBe("succeeded");
    expect((await health().snapshot()).routes[model]?.state ?? "closed").toBe("closed");
  });
});
