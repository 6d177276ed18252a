/** The CLI's progress lines show the queue position and ETA a task reports, and nothing where it reports none. */
import { describe, expect, it } from "vitest";
import { describeUpdate, describeWait, ProgressView } from "../../src/cli/progress.js";
import type { TaskUpdate } from "../../src/types.js";

const update = (progress: Partial<TaskUpdate["progress"]>, status = "queued"): TaskUpdate =>
  ({ task_id: "task_1", status, progress: { percent: 2, stage: "queued", message: "Waiting", ...progress } }) as TaskUpdate;

describe("progress with a queue position and an ETA", () => {
  it("says how many are ahead and how long is left", () => {
    expect(describeWait(update({ queue_position: 3, eta_seconds: 120 }).progress)).toBe("3 ahead, about 2:00 left");
    expect(describeWait(update({ queue_position: 0 }).progress)).toBe("next in queue");
    expect(describeWait(update({ eta_seconds: 75 }).progress)).toBe("about 1:15 left");
    expect(describeWait(update({}).progress)).toBe("");
  });

  it("counts the estimate down from when it arrived, and never shows one already passed", () => {
    expect(describeWait(update({ eta_seconds: 30 }).progress, 10_000)).toBe("about 0:20 left");
    expect(describeWait(update({ eta_seconds: 5 }).progress, 5_000)).toBe("");
    expect(describeWait(update({ eta_seconds: 5 }).progress, 9_000)).toBe("");
    expect(describeWait(update({ queue_position: 1, eta_seconds: 0 }).progress)).toBe("1 ahead");
  });

  it("puts them on the plain line of each change, after the message", () => {
    expect(describeUpdate(update({ queue_position: 1, eta_seconds: 60 }))).toBe(
      "queued      2%  queued: Waiting  (1 ahead, about 1:00 left)",
    );
    expect(describeUpdate(update({}))).toBe("queued      2%  queued: Waiting");
    const lines: string[] = [];
    const view = new ProgressView({ write: (t) => lines.push(t) }, "task_1");
    view.update(update({ eta_seconds: 9 }, "running"));
    view.stop();
    expect(lines).toEqual(["task_1  running     2%  queued: Waiting  (about 0:09 left)\n"]);
  });

  it("draws them on a terminal's live line", () => {
    const out: string[] = [];
    const view = new ProgressView({ write: (t) => out.push(t), isTTY: true, columns: 200 }, "task_1");
    view.update(update({ queue_position: 2, eta_seconds: 90 }));
    view.stop();
    expect(out.join("")).toContain("queued · Waiting · 2 ahead, about 1:30 left");
  });
});
