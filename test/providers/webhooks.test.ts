/**
 * Provider webhooks wake a task early; polling stays the source of truth. An authentic webhook
 * for the task's job makes it poll now; a forged or foreign one is refused and changes nothing.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { BASE, newTenant } from "../helpers/api";
import { forgetCached, taskEvents, taskStub } from "../helpers/tasks";
import { create, follow, newTag, readTask } from "./harness";

const CANVAS = { type: "preset", tier: "1K", aspect: "1:1" };

/** Starts a task that stays queued upstream, and pushes its next poll an hour away. */
async function parkedTask(provider: "fal" | "replicate") {
  const t = await newTenant();
  const created = await create(
    t,
    { provider, path: "/v1/images/generations", body: (text: string) => ({ model: "flux-2-pro", prompt: text, canvas: CANVAS }) },
    newTag(`webhook-${provider}`),
    ["#fake:slow"],
  );
  await follow(t, created.task_id, (x) => x.progress.stage === "submitted" || x.status === "running" || x.progress.percent > 0);
  const park = () =>
    runInDurableObject(taskStub(created.task_id), async (_o, state) => {
      const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task WHERE id = 1").one();
      const rec = JSON.parse(row.record);
      rec.next_poll_at = Date.now() + 3_600_000;
      state.storage.sql.exec("UPDATE task SET record = ? WHERE id = 1", JSON.stringify(rec));
      forgetCached(_o);
      await state.storage.setAlarm(Date.now() + 3_600_000);
      return rec.provider_handle.job_id as string;
    });
  const jobId = await park();
  // A poll already under way when the task was parked saves its own next poll after it: park again.
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 150));
    if ((await nextPollAt(created.task_id)) > Date.now() + 60_000) break;
    await park();
  }
  return { t, taskId: created.task_id as string, jobId };
}

async function nextPollAt(taskId: string): Promise<number> {
  return runInDurableObject(taskStub(taskId), async (_o, state) => {
    const row = state.storage.sql.exec<{ record: string }>("SELECT record FROM task WHERE id = 1").one();
    return JSON.parse(row.record).next_poll_at as number;
  });
}

function post(path: string, body: string, headers: Record<string, string>) {
  return exports.default.fetch(new Request(`${BASE}${path}`, { method: "POST", body, headers }));
}

describe("Replicate webhooks (Standard Webhooks)", () => {
  it("wakes the task for an authentic delivery, and refuses forged or foreign ones", async () => {
    const { t, taskId, jobId } = await parkedTask("replicate");
    const body = JSON.stringify({ id: jobId, status: "succeeded" });
    const secret = env.PROVIDER_REPLICATE_WEBHOOK_SECRET as string;
    const now = new Date();
    const signed = new Webhook(secret).sign("msg_1", now, body);
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": signed,
    };
    const path = `/webhooks/providers/replicate/${taskId}`;

    const forged = await post(path, body, { ...headers, "webhook-signature": "v1,AAAA" });
    expect(forged.status).toBe(401);
    const tampered = await post(path, body.replace("succeeded", "failed"), headers);
    expect(tampered.status).toBe(401);
    expect(await nextPollAt(taskId)).toBeGreaterThan(Date.now() + 60_000);

    const ok = await post(path, body, headers);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ received: true, woke: true });
    expect(await nextPollAt(taskId)).toBeLessThanOrEqual(Date.now());
    expect((await taskEvents(taskId)).map((e) => e.kind)).toContain("provider_webhook");
    // The webhook said "succeeded"; the upstream says queued: polling decides.
    expect((await readTask(t, taskId)).status).not.toBe("succeeded");

    const other = new Webhook(secret).sign("msg_2", now, JSON.stringify({ id: "someone-else" }));
    const foreign = await post(path, JSON.stringify({ id: "someone-else" }), {
      ...headers,
      "webhook-id": "msg_2",
      "webhook-signature": other,
    });
    expect(await foreign.json()).toEqual({ received: true, woke: false });
  });
});

describe("fal webhooks (ED25519 against the published keys)", () => {
  it("wakes the task for an authentic delivery, and refuses a forged one", async () => {
    const { taskId, jobId } = await parkedTask("fal");
    const body = JSON.stringify({ request_id: jobId, gateway_request_id: jobId, status: "OK", payload: {} });
    const signing = await fetch(`${env.PROVIDER_FAL_BASE_URL}/_fake/sign-webhook`, { method: "POST", body });
    const { headers } = (await signing.json()) as { headers: Record<string, string> };
    const path = `/webhooks/providers/fal/${taskId}`;

    expect((await post(path, body.replace('"OK"', '"ERROR"'), headers)).status).toBe(401);
    const wrong = { ...headers };
    for (const k of Object.keys(wrong)) if (/signature/i.test(k)) wrong[k] = "00".repeat(64);
    expect((await post(path, body, wrong)).status).toBe(401);
    expect(await nextPollAt(taskId)).toBeGreaterThan(Date.now() + 60_000);

    const ok = await post(path, body, headers);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ received: true, woke: true });
    expect(await nextPollAt(taskId)).toBeLessThanOrEqual(Date.now());
  });

  it("answers 404 for a provider that sends no webhooks or is unknown", async () => {
    expect((await post(`/webhooks/providers/openai/task_${"0".repeat(64)}`, "{}", {})).status).toBe(404);
    expect((await post(`/webhooks/providers/nope/task_${"0".repeat(64)}`, "{}", {})).status).toBe(404);
  });
});
