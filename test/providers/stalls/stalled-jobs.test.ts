/**
 * Stalled jobs against the fakes of real upstreams: a job that shows nothing new past its card's
 * stall threshold is canceled at an upstream that can cancel and, once that upstream shows it
 * ended, submitted once to the model's next route; the tenant pays for the job that served it
 * only. An upstream that cannot cancel keeps its job to the deadline, and nothing starts elsewhere.
 * The queue position fal reports, and an ETA from the card, show in the progress.
 */
import { describe, expect, it } from "vitest";
import { call, newTenant } from "../../helpers/api";
import { fastForward, ledger, taskEvents } from "../../helpers/tasks";
import { count, create, expectRefunded, fakeRequests, follow, newTag, readTask } from "../harness";

const CANVAS = { type: "preset", tier: "1K", aspect: "1:1" };
const flux = (provider: string) => ({
  provider,
  path: "/v1/images/generations",
  body: (text: string) => ({ model: "flux-2-pro", prompt: text, canvas: CANVAS }),
});

/** Makes the task's upstream look silent for ten minutes (past flux-2-pro's 180 s), then runs its alarm. */
const silentFor10Minutes = (id: string) =>
  fastForward(id, (rec) => {
    rec.activity.at = Date.now() - 600_000;
  });

describe("stalled jobs", () => {
  it("a fal job stuck in the queue is canceled at fal, confirmed ended, moved once to BFL and charged once", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("stall-fal");
    const created = await create(t, flux("fal"), tag, ["#fake:slow@fal"]);
    expect(created.provider.name).toBe("fal");
    const id = created.task_id;
    const queued = await follow(t, id, (x) => x.progress.queue_position !== undefined);
    expect(queued.task.provider.name).toBe("fal");
    await silentFor10Minutes(id);
    const { task } = await follow(t, id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider.name).toBe("bfl");
    expect(task.provider.failed_attempts).toEqual([
      { provider: "fal", code: "model_timeout", message: expect.stringContaining("no progress"), at: expect.any(String) },
    ]);

    // The fake saw the cancel, and BFL got its one submission only after it (never two jobs at once).
    const fal = await fakeRequests("fal", tag);
    const bfl = await fakeRequests("bfl", tag);
    expect(count(fal, "submit")).toBe(1);
    expect(count(fal, "cancel")).toBe(1);
    expect(count(bfl, "submit")).toBe(1);
    const canceledAt = fal.find((r) => r.kind === "cancel")?.at as number;
    const endedAt = Math.max(...fal.filter((r) => r.kind === "status").map((r) => r.at));
    expect(endedAt).toBeGreaterThan(canceledAt);
    expect(bfl.find((r) => r.kind === "submit")?.at).toBeGreaterThan(endedAt);
    expect(count(await fakeRequests("replicate", tag), "submit")).toBe(0);

    // Charged once, for the job that served: the capture is BFL's usage, the rest of the hold released.
    expect(task.billing.net_charged_credits).toBe(task.usage.credits);
    expect(Number(task.usage.credits)).toBeGreaterThan(0);
    const l = (await ledger(t.tenant_id)) as any;
    expect(l.recomputed).toEqual(l.totals);
    expect(l.totals.reserved).toBe("0");
    expect(Number(l.balance)).toBe(1000 - Number(task.usage.credits));

    const kinds = (await taskEvents(id)).map((e) => e.kind);
    expect(kinds.filter((k) => k === "provider_stalled")).toHaveLength(1);
    expect(kinds).toEqual(expect.arrayContaining(["provider_stall_cancel", "provider_stall_stopped", "provider_failover"]));
  });

  it("a stalled job is moved once only: the next route stalling too is left to the deadline", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("stall-twice");
    const created = await create(t, flux("fal"), tag, ["#fake:slow@fal", "#fake:slow@bfl"]);
    const id = created.task_id;
    await follow(t, id, (x) => x.progress.queue_position !== undefined);
    await silentFor10Minutes(id);
    await follow(t, id, (x) => x.provider.name === "bfl" && x.progress.stage === "generating");
    await silentFor10Minutes(id);
    const events = await taskEvents(id);
    expect(events.filter((e) => e.kind === "provider_stalled").map((e) => e.detail.reason ?? e.detail.action)).toEqual([
      "cancel_and_move",
      "moved_once",
    ]);
    const task = await readTask(t, id);
    expect(task.status).not.toBe("failed");
    expect(task.provider.name).toBe("bfl");
    expect(count(await fakeRequests("replicate", tag), "submit")).toBe(0);
    await fastForward(id, (rec) => {
      rec.deadline_at = new Date(Date.now() - 1).toISOString();
    });
    const { task: done } = await follow(t, id);
    expect(done.error.code).toBe("model_timeout");
    await expectRefunded(t, done, "1000");
  });

  it("an upstream that cannot cancel (BFL) keeps its job to the deadline: nothing starts elsewhere, nothing is charged", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("stall-bfl");
    const created = await create(t, flux("bfl"), tag, ["#fake:slow@bfl"]);
    expect(created.provider.name).toBe("bfl");
    const id = created.task_id;
    await follow(t, id, (x) => x.progress.stage === "generating");
    // A poll under way when the clock is moved writes the activity it saw over the moved one; the
    // silence is then made again, as the job is silent all along.
    let cancel: { detail: unknown } | undefined;
    for (let i = 0; i < 5 && !cancel; i++) {
      await silentFor10Minutes(id);
      cancel = (await taskEvents(id)).find((e) => e.kind === "provider_stall_cancel");
    }
    expect(cancel?.detail).toMatchObject({ answer: "not_cancelable" });
    const waiting = await readTask(t, id);
    expect(waiting.provider).toMatchObject({ name: "bfl", failed_attempts: [] });
    expect(count(await fakeRequests("fal", tag), "submit")).toBe(0);
    expect(count(await fakeRequests("replicate", tag), "submit")).toBe(0);

    await fastForward(id, (rec) => {
      rec.deadline_at = new Date(Date.now() - 1).toISOString();
    });
    const { task } = await follow(t, id);
    expect(task.status).toBe("failed");
    expect(task.error.code).toBe("model_timeout");
    expect(count(await fakeRequests("bfl", tag), "submit")).toBe(1);
    await expectRefunded(t, task, "1000");
  });

  it("shows fal's queue position, and an ETA from the card's typical duration", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("stall-queue");
    const created = await create(t, flux("fal"), tag, ["#fake:slow@fal"]);
    const { task } = await follow(t, created.task_id, (x) => x.progress.queue_position !== undefined);
    // The fake's slow request has one request ahead of it; flux-2-pro's typical job is 30 s.
    expect(task.status).toBe("queued");
    expect(task.progress).toMatchObject({ stage: "queued", queue_position: 1, eta_seconds: 60 });
    expect(task.progress.message).toContain("1 request ahead");
    const canceled = await call(`/v1/tasks/${created.task_id}/cancel`, { key: t.api_key, method: "POST", body: {} });
    expect(canceled.json.status).toBe("canceled");
  });
});
