/**
 * When a task object's run sends its isolate's outcomes: routine ones (a job taken, a job started)
 * on a route this isolate has seen closed wait for the next send, at most CALL_FLUSH_MS; anything
 * else goes at once. Outcomes that waited reach the health object with the next send.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OutcomeKind } from "../../src/health/outcomes";
import { CALL_FLUSH_MS, flushOutcomes, recordOutcome, taskFlushDue } from "../../src/health/reporter";
import { keepSnapshot } from "../../src/health/snapshot";

const outcome = (kind: OutcomeKind, upstream_model: string, provider = "sandbox") => ({
  provider,
  upstream_model,
  tenant_id: "ten_reporter",
  task_id: `task_${kind}_${upstream_model}`,
  kind,
  at: Date.now(),
});

const closedEverywhere = () => keepSnapshot("sandbox", { provider: "sandbox", at: Date.now(), routes: {} });

describe("a task object's report to route health", () => {
  it("lets a job taken and a job started wait on a route seen closed, up to CALL_FLUSH_MS", async () => {
    await flushOutcomes(env);
    closedEverywhere();
    const now = Date.now();
    recordOutcome(outcome("submit_accepted", "reporter-model-a"));
    recordOutcome(outcome("first_progress", "reporter-model-a"));
    expect(taskFlushDue(now)).toBe(false);
    expect(taskFlushDue(now + CALL_FLUSH_MS)).toBe(true);
    // What waited is sent with the next send, and counted by the health object.
    await flushOutcomes(env);
    const routes = (await env.HEALTH.getByName("sandbox").status()).routes;
    const route = routes.find((r) => r.upstream_model === "reporter-model-a");
    expect(route?.windows["5m"]).toMatchObject({ accepted: 1, first_progress: 1 });
  });

  it("sends at once a failure, a completion, or a routine outcome of a route not seen closed", async () => {
    for (const [kind, model, provider] of [
      ["job_failed", "reporter-model-b", "sandbox"],
      ["completed", "reporter-model-b", "sandbox"],
      ["submit_refused", "reporter-model-b", "sandbox"],
      // No snapshot of this provider is kept in the isolate.
      ["submit_accepted", "reporter-model-c", "reporter-unknown-provider"],
    ] as const) {
      await flushOutcomes(env);
      closedEverywhere();
      recordOutcome(outcome(kind, model, provider));
      expect(taskFlushDue(), `${kind} on ${provider}`).toBe(true);
    }
    // A half-open circuit waits on its probe's acceptance: that is sent at once.
    await flushOutcomes(env);
    keepSnapshot("sandbox", {
      provider: "sandbox",
      at: Date.now(),
      routes: { "reporter-model-d": { state: "half_open", retry_at: Date.now() - 1, p50_ms: null, p95_ms: null } },
    });
    recordOutcome(outcome("submit_accepted", "reporter-model-d"));
    expect(taskFlushDue()).toBe(true);
    await flushOutcomes(env);
  });
});
