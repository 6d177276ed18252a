/** Storing outputs as plain functions: measured, priced by the serving route, then decided a success. */
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../../src/providers/types";
import { pollAnswered } from "../../../src/tasks/steps/poll";
import {
  beginFetch,
  FETCH_ATTEMPTS,
  fetchFailed,
  measureUsage,
  outputsStored,
  type StoredOutput,
} from "../../../src/tasks/steps/store";
import { submitted } from "../../../src/tasks/steps/submit";
import { kinds, T0, task } from "./task";

function fetching() {
  const polled = submitted(task(), { job_id: "job_1", submitted_at: T0 }, T0).rec;
  return beginFetch(pollAnswered(polled, { state: "succeeded" }, { at: T0, now: T0 }).rec).rec;
}

const image = (index: number): StoredOutput => ({
  kind: "image",
  artifact_id: `art_${index}`,
  url: `https://api.test/v1/artifacts/art_${index}`,
  content_type: "image/png",
  bytes: 1000,
  index,
  width: 1024,
  height: 768,
});

describe("store outputs", () => {
  it("counts the download attempt before it is made", () => {
    const rec = fetching();
    expect(rec.fetch_attempts).toBe(1);
    expect(kinds(beginFetch(rec))).toEqual(["save"]);
  });

  it("prices what was stored, decides success, and passes the store recovery point after saving", () => {
    const step = outputsStored(fetching(), {
      files: [image(0), image(1)],
      result: { outputs: [], usage: {}, metadata: { seed: 7 } },
      current: true,
    });
    expect(kinds(step)).toEqual(["event:outputs_stored", "save", "checkpoint:store"]);
    expect(step.rec).toMatchObject({
      step: "settle",
      pending_outcome: { status: "succeeded" },
      usage: { image_count: 2, image_pixels: 2 * 1024 * 768, credits: "80" },
    });
    expect(step.rec.output).toMatchObject({
      images: [{ artifact_id: "art_0" }, { artifact_id: "art_1" }],
      provider: { name: "first", model: "pic-1", seed: 7 },
    });
    expect((step.rec.output as { artifacts: object[] }).artifacts[0]).not.toHaveProperty("kind");
  });

  it("prices by the route that served the task", () => {
    const rec = {
      ...fetching(),
      route_index: 1,
      route_pricing: [
        [{ meter: "images", unit: "image", unit_credits: "40", usage_key: "image_count" }],
        [{ meter: "images", unit: "image", unit_credits: "25", usage_key: "image_count" }],
      ],
    };
    const step = outputsStored(rec, { files: [image(0)], result: { outputs: [], usage: {} }, current: true });
    expect(step.rec.usage.credits).toBe("25");
  });

  it("only logs the outputs when the task moved on meanwhile (a cancel)", () => {
    const rec = fetching();
    const step = outputsStored(rec, { files: [image(0)], result: { outputs: [], usage: {} }, current: false });
    expect(kinds(step)).toEqual(["event:outputs_stored"]);
    expect(step.rec).toBe(rec);
  });

  it("retries a failed download shortly, then gives up as model_output_invalid", () => {
    const first = fetchFailed(fetching(), new Error("socket hang up"), T0);
    expect(first.wait).toBe(true);
    expect(first.rec.next_poll_at).toBe(T0 + 1000);
    let rec = first.rec;
    for (let i = 1; i < FETCH_ATTEMPTS; i++) rec = beginFetch(rec).rec;
    const last = fetchFailed(rec, new Error("socket hang up"), T0);
    expect(last.rec.pending_outcome).toEqual({
      status: "failed",
      error: {
        code: "model_output_invalid",
        message: `The output could not be downloaded after ${FETCH_ATTEMPTS} attempts: socket hang up`,
      },
    });
  });

  it("ends the task at once on a filtered output: refunded, never downloaded again", () => {
    const step = fetchFailed(fetching(), new ProviderError("content_filtered", "nsfw output"), T0);
    expect(step.wait).toBe(false);
    expect(step.rec.pending_outcome).toEqual({ status: "failed", error: { code: "content_filtered", message: "nsfw output" } });
  });
});

describe("measured usage", () => {
  it("completes what the upstream reported with what the files measure", () => {
    expect(measureUsage([image(0)], { image_count: 3 }, {})).toEqual({ image_count: 3, image_pixels: 1024 * 768 });
    const clip = { ...image(0), kind: "video" as const, duration_seconds: 5.4 };
    expect(measureUsage([clip], {}, { duration: 8 })).toMatchObject({ output_video_seconds: 5, video_seconds: 5 });
    // A clip too large to probe whole is billed at the requested duration.
    const unprobed = { ...clip, duration_seconds: undefined };
    expect(measureUsage([unprobed], {}, { duration: 8 })).toMatchObject({ output_video_seconds: 8 });
  });
});
