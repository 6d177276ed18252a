/**
 * Leaves a provider's routes closed for the tests that follow: the health object's clock moved past
 * every retry time, an accepted probe reported on each route still open, the clock put back, and
 * the isolate's kept snapshots and status forgotten.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { OPEN_MS } from "../../src/health/circuit";
import type { HealthObject } from "../../src/health/health-object";
import { forgetSnapshots, keepSnapshot } from "../../src/health/snapshot";
import { forgetStatus } from "../../src/health/status";

/** Moves `provider`'s health object clock by `ms` and lets this isolate see the result at once. */
export async function shiftHealthClock(provider: string, ms: number): Promise<void> {
  const stub = env.HEALTH.getByName(provider);
  await runInDurableObject(stub as DurableObjectStub<HealthObject>, (o: HealthObject) => {
    o.clock = () => Date.now() + ms;
  });
  keepSnapshot(provider, await stub.snapshot());
}

export async function closeAllRoutes(provider: string): Promise<void> {
  const stub = env.HEALTH.getByName(provider);
  const ahead = OPEN_MS + 1000;
  await shiftHealthClock(provider, ahead);
  for (const [route, r] of Object.entries((await stub.snapshot()).routes)) {
    if (r.state === "closed") continue;
    await stub.report([
      {
        provider,
        upstream_model: route,
        tenant_id: "ten_cleanup",
        task_id: "task_cleanup",
        kind: "submit_accepted",
        at: Date.now() + ahead,
      },
    ]);
  }
  await shiftHealthClock(provider, 0);
  forgetSnapshots();
  forgetStatus();
}
