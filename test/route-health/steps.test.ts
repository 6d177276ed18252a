/**
 * A task whose route's circuit is open at submission, as a plain step: it moves to the given later
 * route with nothing added to `failed_attempts`, or, with none, waits for the route's retry time.
 */
import { describe, expect, it } from "vitest";
import { PROBE_WAIT_MS, routeUnhealthy } from "../../src/tasks/steps/route-health";
import { eventDetail, kinds, T0, task } from "../tasks/steps/task";

describe("routeUnhealthy", () => {
  it("moves to the next route that is not open, as a failover that sent nothing", () => {
    const step = routeUnhealthy(task({ submit_attempts: 1 }), { next: 1, retry_at: T0 + 30_000, now: T0 });
    expect(kinds(step)).toEqual(["event:provider_failover", "save"]);
    expect(eventDetail(step, "provider_failover")).toMatchObject({ from: "first", to: "second", code: "route_unhealthy" });
    expect(step.rec).toMatchObject({ route_index: 1, route: { provider: "second" }, submit_attempts: 0, next_poll_at: T0 });
    expect(step.rec.route_failures).toEqual([]);
    expect(step.wait).toBe(false);
  });

  it("waits for the retry time when no later route is usable, and at least a few seconds for another task's probe", () => {
    const open = routeUnhealthy(task(), { next: null, retry_at: T0 + 20_000, now: T0 });
    expect(open.rec).toMatchObject({ route_index: 0, next_poll_at: T0 + 20_000 });
    expect(open.rec.progress.message).toBe("Waiting for first to recover");
    expect(open.wait).toBe(true);
    const probing = routeUnhealthy(task(), { next: null, retry_at: T0 - 1000, now: T0 });
    expect(probing.rec.next_poll_at).toBe(T0 + PROBE_WAIT_MS);
  });
});
