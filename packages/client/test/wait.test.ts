import { describe, expect, it } from "vitest";
import { MediaApiError, MediaTimeoutError } from "../src/errors.js";
import type { TaskUpdate } from "../src/types.js";
import { apiError, envelope, json, sse, stream, testClient } from "./fake-fetch.js";

const update = (id: number, status: string, percent: number, event = "progress") =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify({ task_id: "task_1", status, progress: { percent, stage: "generating", message: "" } })}\n\n`;
const done = (id: number) => `id: ${id}\nevent: done\ndata: ${JSON.stringify(envelope("succeeded"))}\n\n`;

describe("wait on the event stream", () => {
  it("reports every update and resolves with the final envelope of `done`", async () => {
    const { client, seen } = testClient({
      "GET /v1/tasks/task_1/events": () =>
        sse(["retry: 2000\n\n", update(1, "running", 10, "status"), ": keep-alive\n\n", update(2, "running", 60), done(3)]),
    });
    const updates: TaskUpdate[] = [];
    const final = await client.tasks.wait("task_1", { onProgress: (u) => updates.push(u) });
    expect(final.status).toBe("succeeded");
    expect(updates.map((u) => [u.status, u.progress.percent])).toEqual([
      ["running", 10],
      ["running", 60],
      ["succeeded", 100],
    ]);
    expect(seen[0]?.headers.get("accept")).toBe("text/event-stream");
    expect(seen.some((s) => s.url.pathname === "/v1/tasks/task_1")).toBe(false);
  });

  it("reconnects with Last-Event-ID after the server's retry delay when the stream drops", async () => {
    const { client, seen, waits } = testClient({
      "GET /v1/tasks/task_1/events": [
        () => sse(["retry: 1500\n\n", update(4, "running", 20, "status"), 'id: 5\nevent: progress\ndata: {"trunc'], "error"),
        () => sse([update(6, "running", 80)]),
        () => sse([done(9)]),
      ],
    });
    const final = await client.tasks.wait("task_1");
    expect(final.status).toBe("succeeded");
    const events = seen.filter((s) => s.url.pathname.endsWith("/events"));
    expect(events.map((s) => s.headers.get("last-event-id"))).toEqual([null, "4", "6"]);
    expect(waits).toEqual([1500, 1500]);
  });

  it("gives up on a stream that keeps closing without an event, and reads the task instead", async () => {
    const { client, seen } = testClient({
      "GET /v1/tasks/task_1/events": () => sse([": nothing\n\n"]),
      "GET /v1/tasks/task_1": () => json(200, envelope("succeeded")),
    });
    const final = await client.tasks.wait("task_1", {});
    expect(final.status).toBe("succeeded");
    expect(seen.filter((s) => s.url.pathname.endsWith("/events")).length).toBe(6);
  });

  it("throws task_not_found from the stream instead of polling a task that does not exist", async () => {
    const { client, seen } = testClient({ "GET /v1/tasks/task_1/events": () => apiError(404, "task_not_found", false) });
    const err = await client.tasks.wait("task_1").catch((e) => e);
    expect(err).toBeInstanceOf(MediaApiError);
    expect(err.code).toBe("task_not_found");
    expect(seen).toHaveLength(1);
  });

  it("returns a finished envelope as it is", async () => {
    const { client, seen } = testClient({});
    const final = await client.tasks.wait(envelope("failed") as never);
    expect(final.status).toBe("failed");
    expect(seen).toHaveLength(0);
  });
});

describe("wait by reading the task", () => {
  it("falls back to conditional reads when the server has no event stream (404 for the route)", async () => {
    const { client, seen } = testClient({
      // no events route: the fake answers 404 not_found, as the API does for an unknown path
      "GET /v1/tasks/task_1": [
        () => json(200, envelope("queued"), { ETag: '"v1"' }),
        () => new Response(null, { status: 304, headers: { ETag: '"v1"' } }),
        () => json(200, envelope("running"), { ETag: '"v2"' }),
        () => json(200, envelope("succeeded"), { ETag: '"v3"' }),
      ],
    });
    const updates: string[] = [];
    const final = await client.tasks.wait("task_1", { onProgress: (u) => updates.push(u.status) });
    expect(final.status).toBe("succeeded");
    expect(updates).toEqual(["queued", "running", "succeeded"]);
    const reads = seen.filter((s) => s.url.pathname === "/v1/tasks/task_1");
    expect(reads.map((s) => s.headers.get("if-none-match"))).toEqual([null, '"v1"', '"v1"', '"v2"']);
    // Someone watching progress gets plain reads: a held read would hide the progress.
    expect(reads.every((s) => !s.headers.has("prefer"))).toBe(true);
  });

  it("falls back on 405, 501 and an answer that is not an event stream", async () => {
    for (const answer of [
      () => apiError(405, "method_not_allowed", false),
      () => apiError(501, "streaming_not_yet_implemented", false),
      () => stream(["<html>"], { "Content-Type": "text/html" }),
    ]) {
      const { client } = testClient({
        "GET /v1/tasks/task_1/events": answer,
        "GET /v1/tasks/task_1": () => json(200, envelope("succeeded")),
      });
      await expect(client.tasks.wait("task_1")).resolves.toMatchObject({ status: "succeeded" });
    }
  });

  it("asks the server to hold reads (Prefer: wait) when only the end matters, and does not pause after a held read", async () => {
    const held = { "Preference-Applied": "wait=25" };
    const { client, seen, waits } = testClient({
      "GET /v1/tasks/task_1": [() => json(200, envelope("running"), held), () => json(200, envelope("succeeded"), held)],
    });
    await client.tasks.wait("task_1", { polling: true });
    expect(seen.map((s) => s.headers.get("prefer"))).toEqual(["wait=25", "wait=25"]);
    expect(waits).toEqual([]);
  });

  it("pauses between reads a server does not hold, a little longer each time", async () => {
    const { client, waits } = testClient({
      "GET /v1/tasks/task_1": [...Array(4).fill(() => json(200, envelope("running"))), () => json(200, envelope("canceled"))],
    });
    await client.tasks.wait("task_1", { polling: true, pollIntervalMs: 1000 });
    expect(waits).toEqual([1000, 1500, 2250, 3375]);
  });

  it("gives up after timeoutMs with MediaTimeoutError, leaving the task alone", async () => {
    const { client } = testClient({ "GET /v1/tasks/task_1/events": "hang" });
    const err = await client.tasks.wait("task_1", { timeoutMs: 30 }).catch((e) => e);
    expect(err).toBeInstanceOf(MediaTimeoutError);
    expect(err.taskId).toBe("task_1");
  });
});
