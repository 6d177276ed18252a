/**
 * A stalled job with nowhere to go: on a deployment where the sandbox is a model's only route, a
 * job that makes no progress is never canceled (that would end the only job the task has); it is
 * left to finish or to reach the task's deadline, which ends it model_timeout, refunded.
 */
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { newTenant, type TestTenant } from "../helpers/api";
import { createImage, expectLedgerBalanced, fastForward, runAlarm, taskEvents, taskStub, waitFor } from "../helpers/tasks";

/** Running, and its first answer's activity noted (the status may show a moment before it). */
async function runningWithActivity(id: string) {
  await waitFor(t, id, (x) => x.status === "running");
  for (let i = 0; i < 100; i++) {
    const noted = await runInDurableObject(taskStub(id), (_o, state) => {
      const rec = JSON.parse(state.storage.sql.exec<{ record: string }>("SELECT record FROM task").one().record);
      return rec.activity !== null && rec.activity !== undefined;
    });
    if (noted) return;
    await runAlarm(id).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`task ${id} noted no activity`);
}

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "1000" });
});

describe("a stalled job on a model's only route", () => {
  it("is found stalled, left running, then ends at its deadline with nothing charged", async () => {
    const created = await createImage(t, { model: "flux-2-pro", prompt: "stuck", metadata: { sandbox_fault: "hang" } });
    expect(created.status).toBe(202);
    const id = created.json.task_id;
    await runningWithActivity(id);
    // Its upstream has shown nothing new for ten minutes (past the card's 180 s).
    await fastForward(id, (rec) => {
      rec.activity.at = Date.now() - 600_000;
    });
    const events = await taskEvents(id);
    const stalled = events.find((e) => e.kind === "provider_stalled");
    expect(stalled?.detail).toMatchObject({ provider: "sandbox", action: "wait", reason: "no_other_route" });
    expect(events.some((e) => e.kind === "provider_stall_cancel")).toBe(false);
    const still = await waitFor(t, id, (x) => x.status === "running");
    expect(still.provider).toMatchObject({ name: "sandbox", failed_attempts: [] });

    await fastForward(id, (rec) => {
      rec.deadline_at = new Date(Date.now() - 1).toISOString();
    });
    const done = await waitFor(t, id);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe("model_timeout");
    expect(done.billing.net_charged_credits).toBe("0");
    await expectLedgerBalanced(t.tenant_id);
  });

  it("a job that resumes before the threshold is not stalled", async () => {
    const created = await createImage(t, { model: "flux-2-pro", prompt: "slow but alive", metadata: { sandbox_fault: "hang" } });
    const id = created.json.task_id;
    await runningWithActivity(id);
    await fastForward(id, (rec) => {
      rec.activity.at = Date.now() - 120_000;
    });
    // The simulated upstream recovers: the job finishes on its route.
    await fastForward(id, (rec) => {
      rec.metadata.sandbox_fault = "";
    });
    const done = await waitFor(t, id);
    expect(done.status).toBe("succeeded");
    expect((await taskEvents(id)).some((e) => e.kind === "provider_stalled")).toBe(false);
  });
});
