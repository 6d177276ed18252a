/**
 * GET /v1/tasks/{id}/events: `status` / `progress` events with increasing ids, then `done` with the
 * final envelope; Last-Event-ID resumes after what the client has. The sandbox finishes at once in
 * tests, so a task is held (`stay_queued`, `hang`) and moved on by the test itself.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, newTenant, type TestTenant } from "../helpers/api";
import { type EventReader, openEvents } from "../helpers/events";
import { createImage, fastForward, getTask, waitFor } from "../helpers/tasks";

let t: TestTenant;
beforeAll(async () => {
  t = await newTenant({ credits: "10000" });
});

const IMAGE = { prompt: "followed", canvas: { type: "preset", tier: "1K", aspect: "1:1" } };

/** The next event, which must be a `kind` event. */
async function expectEvent(stream: EventReader, kind: string) {
  const e = await stream.next();
  expect(e, "the stream ended early").not.toBeNull();
  expect(e?.event).toBe(kind);
  expect(e?.id).toMatch(/^\d+$/);
  return { id: Number(e?.id), data: JSON.parse(e?.data as string) };
}

/**
 * Reads on to the first event in `status`, which must be a `status` event; the ones before it
 * (progress the task made while queued, before the stream caught up) must be `progress` events.
 */
async function untilStatus(stream: EventReader, status: string) {
  for (;;) {
    const e = await stream.next();
    expect(e, "the stream ended early").not.toBeNull();
    const data = JSON.parse(e?.data as string);
    if (data.status === status) {
      expect(e?.event).toBe("status");
      return { id: Number(e?.id), data };
    }
    expect(e?.event).toBe("progress");
  }
}

/** Changes the task's progress behind its back; the object's next poll then changes it again (a new event). */
const nudgeProgress = (taskId: string, percent: number) =>
  fastForward(taskId, (rec) => {
    rec.progress = { percent, stage: "generating", message: "moved by the test" };
  });

describe("GET /v1/tasks/{task_id}/events", () => {
  it("a terminal task: `done` with the final envelope at once, then the stream ends", async () => {
    const created = await createImage(t, IMAGE);
    const done = await waitFor(t, created.json.task_id);
    const stream = await openEvents(t, done.task_id);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(stream.headers.get("cache-control")).toContain("no-cache");
    const first = await stream.nextBlock();
    expect(first?.retry).toMatch(/^\d+$/);
    const end = await expectEvent(stream, "done");
    expect(end.data).toEqual((await getTask(t, done.task_id)).json);
    expect(end.data.status).toBe("succeeded");
    expect(end.data.output.artifacts[0].signed_url).toBeTruthy();
    expect(await stream.next()).toBeNull();

    // Whatever the client says it has, a terminal task answers `done`.
    const again = await openEvents(t, done.task_id, { "Last-Event-ID": String(end.id + 1000) });
    const repeat = await expectEvent(again, "done");
    expect(repeat.id).toBe(end.id);
    expect(await again.next()).toBeNull();
  });

  it("status, then progress, then done, with increasing ids; Last-Event-ID skips what the client has", async () => {
    const created = await createImage(t, { ...IMAGE, metadata: { sandbox_fault: "stay_queued" } });
    const taskId = created.json.task_id;
    const stream = await openEvents(t, taskId);
    const queued = await expectEvent(stream, "status");
    expect(queued.data).toEqual({ task_id: taskId, status: "queued", progress: expect.any(Object) });
    expect(queued.id).toBeGreaterThanOrEqual(1);

    // The provider starts: a status change.
    await fastForward(taskId, (rec) => {
      rec.metadata.sandbox_fault = "hang";
    });
    const running = await untilStatus(stream, "running");
    expect(running.id).toBeGreaterThan(queued.id);

    // Only the progress moves: a progress event.
    await nudgeProgress(taskId, 70);
    const moved = await expectEvent(stream, "progress");
    expect(moved.data).toMatchObject({ task_id: taskId, status: "running", progress: { percent: 70 } });
    expect(moved.id).toBeGreaterThan(running.id);

    // A client that has the latest event gets only what comes after it.
    const resumed = await openEvents(t, taskId, { "Last-Event-ID": String(moved.id) });
    await nudgeProgress(taskId, 80);
    const after = await expectEvent(resumed, "progress");
    expect(after.id).toBeGreaterThan(moved.id);
    expect(after.data.progress.percent).toBe(80);
    const onFirst = await expectEvent(stream, "progress");
    expect(onFirst.id).toBe(after.id);

    // A client that is behind gets the state as it is now, as a status event, at once.
    const behind = await openEvents(t, taskId, { "Last-Event-ID": String(queued.id) });
    const caughtUp = await expectEvent(behind, "status");
    expect(caughtUp.id).toBe(after.id);
    expect(caughtUp.data).toMatchObject({ status: "running", progress: { percent: 80 } });
    // A Last-Event-ID that is not one of ours is ignored: the stream starts from the beginning.
    const fresh = await openEvents(t, taskId, { "Last-Event-ID": "not-an-id" });
    expect((await expectEvent(fresh, "status")).id).toBe(after.id);
    await fresh.close();

    // The provider finishes: every open stream ends with the final envelope.
    await fastForward(taskId, (rec) => {
      rec.metadata.sandbox_fault = "";
    });
    for (const s of [stream, resumed, behind]) {
      let e = await s.next();
      while (e && e.event !== "done") e = await s.next();
      expect(e?.event).toBe("done");
      const envelope = JSON.parse(e?.data as string);
      expect(envelope).toMatchObject({ object: "task", task_id: taskId, status: "succeeded" });
      expect(Number(e?.id)).toBeGreaterThan(after.id);
      expect(await s.next()).toBeNull();
    }
  });

  it("ids only grow along one stream", async () => {
    const created = await createImage(t, { ...IMAGE, metadata: { sandbox_fault: "hang" } });
    const taskId = created.json.task_id;
    // Running at the provider first, so that what the test sets is what the next poll keeps.
    await waitFor(t, taskId, (x) => x.status === "running");
    const stream = await openEvents(t, taskId);
    const ids: number[] = [(await expectEvent(stream, "status")).id];
    for (const percent of [60, 65, 70]) {
      await nudgeProgress(taskId, percent);
      let e = await stream.next();
      while (e && JSON.parse(e.data as string).progress?.percent !== percent) {
        ids.push(Number(e.id));
        e = await stream.next();
      }
      ids.push(Number(e?.id));
    }
    await call(`/v1/tasks/${taskId}/cancel`, { key: t.api_key, body: {} });
    let e = await stream.next();
    while (e && e.event !== "done") {
      ids.push(Number(e.id));
      e = await stream.next();
    }
    expect(e?.event).toBe("done");
    ids.push(Number(e?.id));
    expect(JSON.parse(e?.data as string).status).toBe("canceled");
    for (let i = 1; i < ids.length; i++) expect(ids[i] as number).toBeGreaterThan(ids[i - 1] as number);
  });

  it("is in the OpenAPI document as streamTaskEvents", async () => {
    const op = (await call("/openapi.json")).json.paths["/v1/tasks/{task_id}/events"].get;
    expect(op.operationId).toBe("streamTaskEvents");
    expect(op.security).toEqual([{ bearerAuth: [] }]);
    expect(op["x-lifecycle"]).toBe("preview");
    expect(op.responses["200"].content).toHaveProperty("text/event-stream");
  });

  it("404 task_not_found before any stream for an unknown task or another tenant's; 403 without tasks:read", async () => {
    expectError(await call(`/v1/tasks/task_${"0".repeat(64)}/events`, { key: t.api_key }), 404, "task_not_found");
    expectError(await call("/v1/tasks/task_nope/events", { key: t.api_key }), 404, "task_not_found");
    const created = await createImage(t, IMAGE);
    const other = await newTenant();
    expectError(await call(`/v1/tasks/${created.json.task_id}/events`, { key: other.api_key }), 404, "task_not_found");
    const writer = await newTenant({ permissions: ["tasks:write"] });
    expectError(await call(`/v1/tasks/${created.json.task_id}/events`, { key: writer.api_key }), 403, "forbidden");
    expectError(await call(`/v1/tasks/${created.json.task_id}/events`), 401, "unauthorized");
  });
});
