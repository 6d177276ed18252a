/**
 * What fal's status answers give the stall watch and the progress: the queue position as
 * `progress.queue_position`, and an activity that changes only when fal reports something new
 * (its status word, the queue position, a log line), never with the percent drawn from elapsed time.
 */
import { describe, expect, it } from "vitest";
import { readStatusAnswer } from "../../../src/providers/fal/status";

const ctx = (elapsedMs: number) => ({ elapsedMs, typicalMs: 20_000, secrets: ["secret-key-1234"] });

function waiting(status: Parameters<typeof readStatusAnswer>[0], elapsedMs = 3_000) {
  const r = readStatusAnswer(status, ctx(elapsedMs));
  if (r.next !== "wait") throw new Error(`not waiting: ${JSON.stringify(r)}`);
  return r.result;
}

describe("fal status answers for the stall watch", () => {
  it("pass the queue position on, and change activity when it moves", () => {
    const two = waiting({ status: "IN_QUEUE", queue_position: 2 });
    const one = waiting({ status: "IN_QUEUE", queue_position: 1 });
    expect(two.progress.queue_position).toBe(2);
    expect(one.progress.queue_position).toBe(1);
    expect(one.activity).not.toBe(two.activity);
    expect(waiting({ status: "IN_QUEUE", queue_position: 1 }, 90_000).activity).toBe(one.activity);
    expect(waiting({ status: "IN_QUEUE" }).progress.queue_position).toBeUndefined();
    expect(waiting({ status: "IN_QUEUE", queue_position: -1 }).progress.queue_position).toBeUndefined();
  });

  it("keep the same activity while a running request prints nothing new, whatever the elapsed-time percent", () => {
    const logs = [{ message: "Loading model" }];
    const early = waiting({ status: "IN_PROGRESS", logs }, 5_000);
    const late = waiting({ status: "IN_PROGRESS", logs }, 60_000);
    expect(late.progress.percent).toBeGreaterThan(early.progress.percent);
    expect(late.activity).toBe(early.activity);
    expect(late.progress.queue_position).toBeUndefined();
    const more = waiting({ status: "IN_PROGRESS", logs: [...logs, { message: "Generating: 40%" }] }, 61_000);
    expect(more.activity).not.toBe(late.activity);
    // It is stored with the task: a key the runner printed is not kept.
    const leaky = waiting({ status: "IN_PROGRESS", logs: [{ message: "auth secret-key-1234 ok" }] });
    expect(leaky.activity).not.toContain("secret-key-1234");
    // Leaving the queue is news too.
    expect(waiting({ status: "IN_QUEUE", queue_position: 0 }).activity).not.toBe(
      waiting({ status: "IN_PROGRESS", logs: [] }).activity,
    );
  });
});
