/**
 * The sandbox answers a poll as an upstream that publishes its estimate would: ask again when the
 * progress next moves a tenth of the job's profile (at least 250 ms apart), never past its end.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import type { ProviderContext } from "../../src/providers/adapter";
import { sandboxAdapter } from "../../src/providers/sandbox/adapter";
import type { ProviderJob } from "../../src/providers/types";

const job = {
  task_id: "task_poll",
  capability: "text_to_image",
  request: {},
  inputs: [],
  metadata: {},
} as unknown as ProviderJob;
/** text_to_image takes 4000 ms before scaling; at scale 1 the tenths are 400 ms apart. */
const at = (elapsed: number, scale = "1") =>
  sandboxAdapter.poll({ job_id: "sbx_1", submitted_at: 0 }, job, {
    now: elapsed,
    env: { SANDBOX_LATENCY_SCALE: scale } as unknown as Env,
  } as ProviderContext);

describe("sandbox polling", () => {
  it("asks again when the progress next moves, not on a blind backoff", async () => {
    expect(await at(0)).toMatchObject({ state: "queued", poll_after_ms: 400 });
    expect(await at(1000)).toMatchObject({ state: "running", progress: { percent: 25 }, poll_after_ms: 250 });
    expect(await at(1100)).toMatchObject({ state: "running", poll_after_ms: 250 });
    expect(await at(2500)).toMatchObject({ state: "running", poll_after_ms: 300 });
    // Never past the end: the last poll lands when the job is done.
    expect(await at(3900)).toMatchObject({ state: "running", poll_after_ms: 100 });
    expect(await at(4000)).toEqual({ state: "succeeded" });
  });

  it("a slowed sandbox waits as long as its profile says", async () => {
    expect(await at(0, "1000")).toMatchObject({ state: "queued", poll_after_ms: 400_000 });
  });
});
