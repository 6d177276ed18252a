/**
 * Outputs kept for the task's retention: each artifact shows `expires_at`, its signed URL never
 * outlives it; past it (the clock moved forward) every read refuses the artifact, the envelope shows
 * it `expired` with no URL, and the task object's alarm deletes it from R2.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { artifactKey } from "../../src/media/artifacts";
import { admin, call, expectError, newTenant, send, type TestTenant } from "../helpers/api";
import { createImage, getTask, runAlarm, taskEvents, taskStub, waitFor } from "../helpers/tasks";

const DAY_MS = 24 * 60 * 60 * 1000;

afterEach(() => {
  vi.useRealTimers();
});

/** A succeeded task of `t`, and the window in which its outputs were stored. */
async function succeeded(t: TestTenant, body: Record<string, unknown> = {}) {
  const before = Date.now();
  const created = await createImage(t, { prompt: "a kept lighthouse", count: 2, ...body });
  expect(created.status, JSON.stringify(created.json)).toBe(202);
  const done = await waitFor(t, created.json.task_id);
  expect(done.status).toBe("succeeded");
  return { task: done, before, after: Date.now() };
}

const download = (t: TestTenant, id: string) => call(`/v1/artifacts/${id}`, { key: t.api_key });

/** Moves the test's clock (Date only: timers still run) to `ms`. */
function clockAt(ms: number) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(ms));
}

describe("expires_at", () => {
  it("is the request's days after the outputs were stored, on every artifact", async () => {
    const t = await newTenant({ credits: "10000" });
    const { task, before, after } = await succeeded(t, { output_retention_days: 3 });
    const all = [...task.output.artifacts, ...task.output.images];
    expect(task.output.artifacts.length).toBe(2);
    for (const a of all) {
      const at = Date.parse(a.expires_at);
      expect(at).toBeGreaterThanOrEqual(before + 3 * DAY_MS);
      expect(at).toBeLessThanOrEqual(after + 3 * DAY_MS);
      expect(a.expires_at).toBe(task.output.artifacts[0].expires_at);
      expect(a.expired).toBeUndefined();
      // The object carries its end too.
      const head = await env.ARTIFACTS.head(artifactKey(a.artifact_id));
      expect(head?.customMetadata?.expires_at).toBe(a.expires_at);
    }
  });

  it("is the tenant's retention when the request names none", async () => {
    const t = await newTenant({ credits: "10000" });
    const first = await succeeded(t);
    expect(Date.parse(first.task.output.artifacts[0].expires_at)).toBeGreaterThanOrEqual(first.before + 30 * DAY_MS);
    await admin(`/admin/v1/tenants/${t.tenant_id}/settings`, { output_retention_days: 7 });
    const second = await succeeded(t);
    const at = Date.parse(second.task.output.artifacts[0].expires_at);
    expect(at).toBeGreaterThanOrEqual(second.before + 7 * DAY_MS);
    expect(at).toBeLessThanOrEqual(second.after + 7 * DAY_MS);
  });

  it("bounds the signed URLs: one day of retention, one day of link at most", async () => {
    const t = await newTenant({ credits: "10000" });
    const { task } = await succeeded(t, { output_retention_days: 1 });
    for (const a of task.output.artifacts) {
      // Without retention a link lasts 24 to 25 hours; this one ends with the artifact.
      expect(a.signed_url_expires_at).toBe(a.expires_at.replace(/\.\d{3}Z$/, ".000Z"));
      const expires = Number(new URL(a.signed_url).searchParams.get("expires"));
      expect(expires).toBe(Math.floor(Date.parse(a.expires_at) / 1000));
      expect((await send(new Request(a.signed_url))).status).toBe(200);
    }
    // A longer retention leaves the usual 24-hour links.
    const long = await succeeded(t, { output_retention_days: 30 });
    const a = long.task.output.artifacts[0];
    expect(Date.parse(a.signed_url_expires_at)).toBeLessThan(Date.parse(a.expires_at));
  });

  it("sets the task object's alarm for the outputs' end", async () => {
    const t = await newTenant({ credits: "10000" });
    const { task } = await succeeded(t, { output_retention_days: 2 });
    // While an alarm run is under way (the task's last steps, its events), none is set: wait for it.
    const readAlarm = () => runInDurableObject(taskStub(task.task_id), (_o, state) => state.storage.getAlarm());
    let alarm = await readAlarm();
    for (let i = 0; i < 100 && alarm !== Date.parse(task.output.artifacts[0].expires_at); i++) {
      await new Promise((r) => setTimeout(r, 20));
      alarm = await readAlarm();
    }
    expect(alarm).toBe(Date.parse(task.output.artifacts[0].expires_at));
  });
});

describe("past expires_at", () => {
  it("every read refuses the artifact at once; the envelope shows it expired; the alarm deletes its bytes", async () => {
    const t = await newTenant({ credits: "10000" });
    const { task } = await succeeded(t, { output_retention_days: 1 });
    const ids = task.output.artifacts.map((a: any) => a.artifact_id);
    const signed = task.output.artifacts.map((a: any) => a.signed_url);
    const etag = (await getTask(t, task.task_id)).headers.get("etag");
    expect((await download(t, ids[0])).status).toBe(200);

    clockAt(Date.parse(task.output.artifacts[0].expires_at) + 1000);
    // Before the alarm has run: the bytes are still stored, and nothing serves them.
    expect(await env.ARTIFACTS.head(artifactKey(ids[0]))).not.toBeNull();
    for (const id of ids) expectError(await download(t, id), 404, "artifact_not_found");
    for (const url of signed) expectError(await send(new Request(url)), 404, "artifact_not_found");
    const read = await getTask(t, task.task_id);
    expect(read.status).toBe(200);
    expect(read.headers.get("etag")).not.toBe(etag);
    for (const a of [...read.json.output.artifacts, ...read.json.output.images]) {
      expect(a.expired).toBe(true);
      expect(a.expires_at).toBe(task.output.artifacts[0].expires_at);
      expect(a).not.toHaveProperty("url");
      expect(a).not.toHaveProperty("signed_url");
      expect(a).not.toHaveProperty("signed_url_expires_at");
      expect(ids).toContain(a.artifact_id);
    }
    // The task keeps everything else.
    expect(read.json.status).toBe("succeeded");
    expect(read.json.usage).toEqual(task.usage);

    await runAlarm(task.task_id);
    for (const id of ids) expect(await env.ARTIFACTS.head(artifactKey(id))).toBeNull();
    expect((await taskEvents(task.task_id)).filter((e) => e.kind === "outputs_deleted")).toEqual([
      { kind: "outputs_deleted", detail: { count: 2 } },
    ]);
    const after = await getTask(t, task.task_id);
    expect(after.json.output.artifacts.every((a: any) => a.expired === true && !("url" in a))).toBe(true);
    expect(await runInDurableObject(taskStub(task.task_id), (_o, state) => state.storage.getAlarm())).toBeNull();
    // A second alarm finds nothing more to do.
    await runAlarm(task.task_id);
    expect((await taskEvents(task.task_id)).filter((e) => e.kind === "outputs_deleted")).toHaveLength(1);
  });

  it("an alarm before expires_at deletes nothing", async () => {
    const t = await newTenant({ credits: "10000" });
    const { task } = await succeeded(t, { output_retention_days: 2 });
    clockAt(Date.parse(task.output.artifacts[0].expires_at) - 60_000);
    await runAlarm(task.task_id);
    const id = task.output.artifacts[0].artifact_id;
    expect(await env.ARTIFACTS.head(artifactKey(id))).not.toBeNull();
    expect((await download(t, id)).status).toBe(200);
    expect((await getTask(t, task.task_id)).json.output.artifacts[0].expired).toBeUndefined();
  });

  it("an expired output is no task input any more", async () => {
    const t = await newTenant({ credits: "10000" });
    const { task } = await succeeded(t, { output_retention_days: 1 });
    const id = task.output.artifacts[0].artifact_id;
    clockAt(Date.parse(task.output.artifacts[0].expires_at) + 1000);
    const res = await call("/v1/images/edits", {
      key: t.api_key,
      body: { model: "flux-2-pro", prompt: "make it blue", images: [{ type: "artifact", artifact_id: id }] },
      headers: { "Idempotency-Key": `expired-${id}` },
    });
    expectError(res, 404, "artifact_not_found", "/images/0/artifact_id");
  });
});
