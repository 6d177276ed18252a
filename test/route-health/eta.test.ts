/**
 * A running task's `progress.eta_seconds` comes from its route's measured median time to
 * completion (route health's `p50_ms`) less the time its job has taken; without measurements, from
 * the card's `timing.typical_seconds`.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RouteOutcome } from "../../src/health/outcomes";
import { keepSnapshot } from "../../src/health/snapshot";
import { newTenant } from "../helpers/api";
import { createImage, fastForward, getTask, waitFor } from "../helpers/tasks";

/** Completed jobs of ~4 s on a route: its p50 is the 5 s bucket's bound. */
async function measure(provider: string, upstreamModel: string, durationMs: number): Promise<void> {
  const now = Date.now();
  const outcomes: RouteOutcome[] = Array.from({ length: 5 }, (_, i) => ({
    provider,
    upstream_model: upstreamModel,
    tenant_id: "ten_eta",
    task_id: `task_eta_${i}`,
    kind: "completed",
    duration_ms: durationMs,
    at: now + i,
  }));
  // The isolate keeps the answer at once, as a task's own report would.
  keepSnapshot(provider, await env.HEALTH.getByName(provider).report(outcomes));
}

describe("the ETA of a running task", () => {
  it("comes from the card without measurements, and from the route's measured median once it has them", async () => {
    const t = await newTenant({ credits: "100" });
    const created = await createImage(t, { model: "flux-2-pro", prompt: "slowly", metadata: { sandbox_fault: "hang" } });
    expect(created.status, created.text).toBe(202);
    const id = created.json.task_id;
    const running = await waitFor(t, id, (x) => x.status === "running" && x.progress.eta_seconds !== undefined);
    // flux-2-pro's card says a typical job takes 30 s, and nothing is measured on its route yet.
    expect(running.progress.eta_seconds).toBeGreaterThan(5);
    expect(running.progress.eta_seconds).toBeLessThanOrEqual(30);

    await measure(running.provider.name, running.provider.upstream_model, 4_000);
    await fastForward(id);
    const measured = (await getTask(t, id)).json;
    expect(measured.status).toBe("running");
    expect(measured.progress.eta_seconds).toBeGreaterThanOrEqual(1);
    expect(measured.progress.eta_seconds).toBeLessThanOrEqual(5);

    // Once the job has taken longer than the measured median, no ETA rather than one already passed.
    await fastForward(id, (rec) => {
      rec.provider_handle.submitted_at = Date.now() - 60_000;
    });
    const late = (await getTask(t, id)).json;
    expect(late.status).toBe("running");
    expect(late.progress.eta_seconds).toBeUndefined();
  });
});
