/** The loop that follows a task (events, Prefer: wait) and the event stream built on it, against scripted reads. */
import { describe, expect, it } from "vitest";
import { taskEventStream } from "../../src/services/task-events";
import { followTask, waitForTerminal } from "../../src/tasks/follow";
import type { TaskRead, TaskState } from "../../src/tasks/task-answers";

const state = (seq: number, status: TaskState["status"], percent = 0): TaskState => ({
  status,
  progress: { percent, stage: status, message: `at ${seq}` },
  seq,
});

/** Reads that return the scripted states in turn, then the last one forever. */
function scripted(...states: (TaskState | null | Error)[]) {
  let n = 0;
  const read = async () => {
    const s = states[Math.min(n++, states.length - 1)];
    if (s instanceof Error) throw s;
    return s ?? null;
  };
  return { read, calls: () => n };
}

const never = () => new AbortController().signal;
const final = (seq: number): TaskRead => ({
  body: JSON.stringify({ object: "task", status: "succeeded", seq }),
  etag: '"x"',
  status: "succeeded",
  change_seq: seq,
  resolved_model: "m",
  deprecated: false,
});

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe("followTask", () => {
  it("reads until the task is terminal, through failed reads", async () => {
    const s = scripted(state(1, "queued"), new Error("object restarting"), state(2, "running", 50), state(3, "succeeded", 100));
    const seen: number[] = [];
    const last = await followTask(s.read, {
      until: Date.now() + 60_000,
      signal: never(),
      onState: (x) => {
        seen.push(x.seq);
        return x.status === "succeeded";
      },
    });
    expect(last?.seq).toBe(3);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("ends when the task is no longer the caller's", async () => {
    const s = scripted(state(1, "queued"), null);
    expect(await waitForTerminal(s.read, { until: Date.now() + 60_000, signal: never() })).toBeNull();
  });

  it("ends at once when the signal aborts, with the last state read", async () => {
    const abort = new AbortController();
    const s = scripted(state(4, "running"));
    const following = waitForTerminal(s.read, { until: Date.now() + 3_600_000, signal: abort.signal });
    abort.abort();
    expect((await following)?.seq).toBe(4);
  });

  it("a state given first is not read again", async () => {
    const s = scripted(state(9, "succeeded"));
    const last = await waitForTerminal(s.read, { first: state(9, "succeeded"), until: Date.now() + 1000, signal: never() });
    expect(last?.seq).toBe(9);
    expect(s.calls()).toBe(0);
  });
});

describe("taskEventStream", () => {
  it("status, status, progress, then done; ids are the change counter", async () => {
    const s = scripted(state(2, "running", 10), state(3, "running", 40), state(4, "succeeded", 100));
    const text = await readAll(
      taskEventStream({
        taskId: "task_x",
        first: state(1, "queued"),
        lastEventId: null,
        readState: s.read,
        readFinal: async () => final(4),
      }),
    );
    const blocks = text.split("\n\n").filter(Boolean);
    expect(blocks[0]).toMatch(/^retry: \d+$/);
    expect(blocks.slice(1).map((b) => b.split("\n").slice(0, 2).join(" "))).toEqual([
      "id: 1 event: status",
      "id: 2 event: status",
      "id: 3 event: progress",
      "id: 4 event: done",
    ]);
    expect(blocks[3]).toContain(
      `data: ${JSON.stringify({ task_id: "task_x", status: "running", progress: state(3, "running", 40).progress })}`,
    );
    expect(blocks[4]).toContain(`data: ${final(4).body}`);
  });

  it("after Last-Event-ID: only newer events; a progress change of the status the client has is `progress`", async () => {
    const s = scripted(state(3, "running", 40), state(4, "succeeded", 100));
    const text = await readAll(
      taskEventStream({
        taskId: "task_x",
        first: state(2, "running", 10),
        lastEventId: 2,
        readState: s.read,
        readFinal: async () => final(4),
      }),
    );
    const events = text.split("\n\n").filter((b) => b.startsWith("id:"));
    expect(events.map((b) => b.split("\n").slice(0, 2).join(" "))).toEqual(["id: 3 event: progress", "id: 4 event: done"]);
  });

  it("stops reading when the client goes away", async () => {
    const s = scripted(state(1, "running"));
    const stream = taskEventStream({
      taskId: "task_x",
      first: state(1, "running"),
      lastEventId: null,
      readState: s.read,
      readFinal: async () => null,
    });
    const reader = stream.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    const after = s.calls();
    // The loop was asleep and is woken by the cancel: it ends without reading again.
    await new Promise((r) => setTimeout(r, 600));
    expect(s.calls()).toBe(after);
  });
});
