/**
 * Route health with real adapters against the fake upstreams: fal failing for two tenants opens
 * its flux-2-pro route, the task on it at that moment moves to BFL without trying fal again, new
 * tasks skip it, the status page shows the incident; after the open time (the health object's
 * clock moved) the next task probes fal and its acceptance closes the circuit. One tenant's
 * failures alone never open it while another tenant succeeds there; empty answers count.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { OPEN_MS } from "../../../src/health/circuit";
import { forgetStatus } from "../../../src/health/status";
import { call, newTenant } from "../../helpers/api";
import { taskEvents } from "../../helpers/tasks";
import { closeAllRoutes, shiftHealthClock } from "../../route-health/close";
import { count, create, fakeRequests, follow, newTag } from "../harness";

const CANVAS = { type: "preset", tier: "1K", aspect: "1:1" };
const flux = {
  provider: "fal",
  path: "/v1/images/generations",
  body: (text: string) => ({ model: "flux-2-pro", prompt: text, canvas: CANVAS }),
};

const falHealth = () => env.HEALTH.getByName("fal");

// Whatever a test left open is closed for the next.
afterEach(() => closeAllRoutes("fal"));

describe("route health across a model's routes", () => {
  it("opens fal for flux-2-pro after failures from two tenants, routes around it, shows it, and closes it with a probe", async () => {
    const a = await newTenant({ credits: "1000" });
    const b = await newTenant({ credits: "1000" });
    const tasks: any[] = [];
    for (let i = 0; i < 4; i++) {
      const t = i % 2 ? b : a;
      const created = await create(t, flux, newTag(`health-down-${i}`), ["#fake:down@fal"]);
      expect(created.provider.name).toBe("fal");
      const { task } = await follow(t, created.task_id);
      expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
      expect(task.provider.name).toBe("bfl");
      tasks.push(task);
    }
    // Three tasks tried fal three times each; the fourth's first refusal was the tenth failure:
    // the circuit opened, and the fourth moved to BFL without trying fal again.
    expect(tasks.slice(0, 3).map((t) => t.provider.failed_attempts.length)).toEqual([3, 3, 3]);
    expect(tasks[3].provider.failed_attempts.map((f: any) => f.provider)).toEqual(["fal"]);
    const moved = (await taskEvents(tasks[3].task_id)).find((e) => e.kind === "provider_failover");
    expect(moved?.detail).toMatchObject({ from: "fal", to: "bfl", code: "route_unhealthy" });

    // A new task of the same model skips fal from the start: nothing is sent to it.
    const tag = newTag("health-skip");
    const skipped = await create(a, flux, tag, []);
    expect(skipped.provider.name).toBe("bfl");
    const { task: done } = await follow(a, skipped.task_id);
    expect(done.status).toBe("succeeded");
    expect(done.provider.failed_attempts).toEqual([]);
    expect(count(await fakeRequests("fal", tag), "submit")).toBe(0);

    forgetStatus();
    const status = (await call("/v1/status")).json;
    expect(status.open_circuits).toContainEqual(
      expect.objectContaining({ provider: "fal", upstream_model: "fal-ai/flux-2-pro", state: "open" }),
    );
    const fal = status.providers.find((p: any) => p.provider === "fal");
    expect(fal.state).toBe("degraded");
    const model = status.models.find((m: any) => m.model === "flux-2-pro");
    expect(model.state).toBe("degraded");
    expect(model.routes).toContainEqual({ provider: "fal", upstream_model: "fal-ai/flux-2-pro", state: "down" });
    const incident = status.incidents.find((i: any) => i.provider === "fal");
    expect(incident).toMatchObject({ upstream_model: "fal-ai/flux-2-pro", ended_at: null, failures: 10 });
    expect(incident.codes).toEqual({ model_unavailable: 10 });
    expect(incident.models).toContain("flux-2-pro");

    // After the open time one task makes the probe on fal; its acceptance closes the circuit.
    await shiftHealthClock("fal", OPEN_MS + 1000);
    const probeTag = newTag("health-probe");
    const probe = await create(b, flux, probeTag, []);
    expect(probe.provider.name).toBe("fal");
    const { task: probed } = await follow(b, probe.task_id);
    expect(probed.status).toBe("succeeded");
    expect(probed.provider.name).toBe("fal");
    expect(count(await fakeRequests("fal", probeTag), "submit")).toBe(1);
    await expect.poll(async () => (await falHealth().snapshot()).routes["fal-ai/flux-2-pro"]?.state).toBe("closed");
    const after = (await falHealth().status()).incidents.find((i) => i.upstream_model === "fal-ai/flux-2-pro");
    expect(after?.ended_at).not.toBeNull();
  });

  it("never opens on one tenant's failures while another tenant succeeds on the route", async () => {
    const bad = await newTenant({ credits: "1000" });
    const good = await newTenant({ credits: "1000" });
    const ok = await create(good, flux, newTag("health-good"), []);
    expect((await follow(good, ok.task_id)).task.provider.name).toBe("fal");
    for (let i = 0; i < 4; i++) {
      const created = await create(bad, flux, newTag(`health-bad-${i}`), ["#fake:down@fal"]);
      const { task } = await follow(bad, created.task_id);
      expect(task.provider.failed_attempts).toHaveLength(3);
    }
    expect((await falHealth().snapshot()).routes["fal-ai/flux-2-pro"]?.state).toBe("closed");
    const tag = newTag("health-good-again");
    const again = await create(good, flux, tag, []);
    expect(again.provider.name).toBe("fal");
    expect((await follow(good, again.task_id)).task.provider.name).toBe("fal");
    expect(count(await fakeRequests("fal", tag), "submit")).toBe(1);
  });

  it("counts a result answered 200 without its documented outputs (an empty answer) as fal's failure", async () => {
    const t = await newTenant({ credits: "1000" });
    const route = async () =>
      (await falHealth().status()).routes.find((r) => r.upstream_model === "fal-ai/flux-2-pro")?.windows["5m"];
    const before = (await route()) ?? { accepted: 0, failed: 0, completed: 0, output_failed: 0 };
    const created = await create(t, flux, newTag("health-malformed"), ["#fake:malformed@fal"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status).toBe("failed");
    await expect.poll(async () => (await route())?.output_failed).toBe(before.output_failed + 1);
    expect(await route()).toMatchObject({
      accepted: before.accepted + 1,
      failed: before.failed + 1,
      completed: before.completed,
    });
  });
});
