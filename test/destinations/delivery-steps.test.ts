/** The deliver step as plain functions: when it is entered, its retry schedule, when it ends, and what the envelope shows. */
import { describe, expect, it } from "vitest";
import { DELIVERY_ATTEMPTS, deliveryAttempted, deliveryView } from "../../src/destinations/delivery";
import type { TaskRecord } from "../../src/task-record/record";
import { envelope } from "../../src/task-record/record";
import { pollAnswered } from "../../src/tasks/steps/poll";
import { beginFetch, outputsStored, type StoredOutput } from "../../src/tasks/steps/store";
import { submitted } from "../../src/tasks/steps/submit";
import { T0, task } from "../tasks/steps/task";

const DESTINATION = { destination_id: "dst_1", prefix: "out" };

function fetching(destination: typeof DESTINATION | null) {
  const polled = submitted(task({}, { output_destination: destination }), { job_id: "job_1", submitted_at: T0 }, T0).rec;
  return beginFetch(pollAnswered(polled, { state: "succeeded" }, { at: T0, now: T0 }).rec).rec;
}

const image = (index: number): StoredOutput => ({
  kind: "image",
  artifact_id: `art_${index}`,
  url: `https://api.test/v1/artifacts/art_${index}`,
  content_type: index === 1 ? "image/jpeg" : "image/png",
  bytes: 1000 + index,
  index,
  width: 64,
  height: 64,
});

function stored(destination: typeof DESTINATION | null, files = [image(0), image(1)]): TaskRecord {
  return outputsStored(fetching(destination), { files, result: { outputs: [], usage: {} }, current: true }).rec;
}

describe("the deliver step", () => {
  it("comes between storing and settling, with one pending item per output under <prefix>/<task_id>/<index>.<ext>", () => {
    const rec = stored(DESTINATION);
    expect(rec.step).toBe("deliver");
    expect(rec.pending_outcome?.status).toBe("succeeded");
    expect(rec.delivery?.items.map((i) => [i.key, i.status, i.bytes])).toEqual([
      ["out/task_steps/0.png", "pending", 1000],
      ["out/task_steps/1.jpg", "pending", 1001],
    ]);
    expect(stored(null).step).toBe("settle");
    expect(stored(null).delivery).toBeNull();
  });

  it("is skipped when there is no stored file to deliver", () => {
    const rec = stored(DESTINATION, []);
    expect(rec.step).toBe("settle");
    expect(rec.delivery).toBeNull();
  });

  it("waits 1 s, 2 s, 4 s between attempts, then fails what is left and settles", () => {
    let rec = stored(DESTINATION);
    const now = T0 + 10_000;
    const waits: number[] = [];
    for (let n = 1; n <= DELIVERY_ATTEMPTS; n++) {
      const step = deliveryAttempted(
        rec,
        [
          { index: 0, ok: true, etag: "e0" },
          { index: 1, ok: false, error: "SlowDown: Please reduce your request rate.", retryable: true },
        ],
        now,
      );
      rec = step.rec;
      if (n < DELIVERY_ATTEMPTS) {
        expect(step.wait).toBe(true);
        waits.push((rec.next_poll_at as number) - now);
      } else {
        expect(step.wait).toBe(false);
      }
    }
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(rec.step).toBe("settle");
    expect(rec.delivery?.items.map((i) => [i.status, i.etag])).toEqual([
      ["delivered", "e0"],
      ["failed", null],
    ]);
    expect(deliveryView(rec.delivery)).toMatchObject({ status: "failed", failed: [{ index: 1, key: "out/task_steps/1.jpg" }] });
  });

  it("does not try again what the bucket refuses for good", () => {
    const step = deliveryAttempted(
      stored(DESTINATION),
      [
        { index: 0, ok: true, etag: null },
        { index: 1, ok: false, error: "AccessDenied: Access Denied", retryable: false },
      ],
      T0 + 10_000,
    );
    expect(step.rec.step).toBe("settle");
    expect(step.rec.delivery?.attempt_count).toBe(1);
  });

  it("makes its last attempt at the deadline, whatever attempts are left", () => {
    const rec = stored(DESTINATION);
    const late = Date.parse(rec.deadline_at) + 1;
    const step = deliveryAttempted(rec, [{ index: 0, ok: false, error: "InternalError: x", retryable: true }], late);
    expect(step.rec.step).toBe("settle");
    expect(step.rec.delivery?.items[0]?.status).toBe("failed");
  });

  it("shows delivered copies per artifact and the warning only when something failed", () => {
    const ok = deliveryAttempted(
      stored(DESTINATION),
      [
        { index: 0, ok: true, etag: "a" },
        { index: 1, ok: true, etag: "b" },
      ],
      T0 + 10_000,
    ).rec;
    const shown = envelope(ok) as any;
    expect(shown.output.artifacts[1].delivered).toEqual([
      { destination_id: "dst_1", key: "out/task_steps/1.jpg", etag: "b", bytes: 1001 },
    ]);
    expect(shown.delivery).toMatchObject({ status: "delivered", failed: [] });
    expect(shown.warnings.map((w: any) => w.code)).not.toContain("output_delivery_failed");
    const bad = deliveryAttempted(
      stored(DESTINATION),
      [
        { index: 0, ok: true, etag: "a" },
        { index: 1, ok: false, error: "AccessDenied: Access Denied", retryable: false },
      ],
      T0 + 10_000,
    ).rec;
    expect((envelope(bad) as any).warnings.map((w: any) => w.code)).toContain("output_delivery_failed");
  });
});
