/**
 * A submission whose answer never arrives (the connection drops after the upstream took the job):
 * the task never submits again. Replicate can be asked: its list of predictions names the job by
 * model, creation time and input, and the task takes it up. fal and BFL cannot: fal's signed
 * webhook names the job and the task adopts it; without one the task ends refunded, submitted once.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, newTenant } from "../helpers/api";
import { fastForward, taskEvents } from "../helpers/tasks";
import { count, create, expectRefunded, fakeRequests, follow, newTag } from "./harness";

const CANVAS = { type: "preset", tier: "1K", aspect: "1:1" };
const flux = (provider: string) => ({
  provider,
  path: "/v1/images/generations",
  body: (text: string) => ({ model: "flux-2-pro", prompt: text, canvas: CANVAS }),
});

/** Creates a task whose first submission loses its answer, and waits until the task knows it. */
async function lostOn(provider: "fal" | "bfl") {
  const t = await newTenant({ credits: "1000" });
  const tag = newTag(`lost-${provider}`);
  const created = await create(t, flux(provider), tag, ["#fake:answer_lost"]);
  const { task } = await follow(
    t,
    created.task_id,
    (x) => x.status === "failed" || /interrupted submission/.test(x.progress.message ?? ""),
  );
  return { t, tag, taskId: created.task_id as string, task };
}

async function falWebhook(taskId: string, requestId: string) {
  const body = JSON.stringify({ request_id: requestId, gateway_request_id: requestId, status: "OK", payload: {} });
  const signing = await fetch(`${env.PROVIDER_FAL_BASE_URL}/_fake/sign-webhook`, { method: "POST", body });
  const { headers } = (await signing.json()) as { headers: Record<string, string> };
  return exports.default.fetch(new Request(`${BASE}/webhooks/providers/fal/${taskId}`, { method: "POST", body, headers }));
}

describe("a submission whose answer was lost", () => {
  it("fal: waits for the job's signed webhook, adopts that job and finishes it, submitted once", async () => {
    const { t, tag, taskId, task } = await lostOn("fal");
    expect(task.status).toBe("queued");
    const ids: string[] = await (await fetch(`${env.PROVIDER_FAL_BASE_URL}/_fake/jobs?tag=${tag}`)).json();
    expect(ids).toHaveLength(1);

    // fal calls back the URL the submission carried, which names this task.
    const res = await falWebhook(taskId, ids[0] as string);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, woke: true });

    const { task: done } = await follow(t, taskId);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    expect(done.output.artifacts).toHaveLength(1);
    expect(count(await fakeRequests("fal", tag), "submit")).toBe(1);
    const events = await taskEvents(taskId);
    expect(events.find((e) => e.kind === "provider_adopted")?.detail).toMatchObject({ job_id: ids[0] });
  });

  it("fal: with no webhook within the window, ends refunded and is never submitted again", async () => {
    const { t, tag, taskId } = await lostOn("fal");
    // The window (30 min from the submission) has passed.
    await fastForward(taskId, (rec) => {
      rec.submitting.at -= 31 * 60_000;
    });
    const { task } = await follow(t, taskId);
    expect(task.status).toBe("failed");
    expect(task.error).toMatchObject({ code: "model_request_failed", retryable: true });
    expect(task.error.message).toMatch(/new Idempotency-Key/);
    await expectRefunded(t, task, "1000");
    expect(count(await fakeRequests("fal", tag), "submit")).toBe(1);
    // A late webhook for the job no longer moves the task.
    const ids: string[] = await (await fetch(`${env.PROVIDER_FAL_BASE_URL}/_fake/jobs?tag=${tag}`)).json();
    expect(await (await falWebhook(taskId, ids[0] as string)).json()).toEqual({ received: true, woke: false });
  });

  it("Replicate: finds the prediction in its list by model, time and input, and finishes it, submitted once", async () => {
    const t = await newTenant({ credits: "1000" });
    const tag = newTag("lost-replicate");
    const created = await create(t, flux("replicate"), tag, ["#fake:answer_lost"]);
    const { task } = await follow(t, created.task_id);
    expect(task.status, JSON.stringify(task.error)).toBe("succeeded");
    expect(task.provider.name).toBe("replicate");
    expect(task.output.artifacts).toHaveLength(1);
    const requests = await fakeRequests("replicate", tag);
    expect(count(requests, "submit")).toBe(1);
    expect(count(requests, "list")).toBeGreaterThanOrEqual(1);
    const events = await taskEvents(created.task_id);
    const reconciled = events.find((e) => e.kind === "provider_reconciled");
    expect(reconciled?.detail).toMatchObject({ provider: "replicate" });
    expect(task.billing.net_charged_credits).toBe(task.usage.credits);
  });

  it("BFL (no listing, no webhook): ends at once, refunded, submitted once", async () => {
    const { t, tag, task } = await lostOn("bfl");
    expect(task.status).toBe("failed");
    expect(task.error.code).toBe("model_request_failed");
    await expectRefunded(t, task, "1000");
    expect(count(await fakeRequests("bfl", tag), "submit")).toBe(1);
  });
});
