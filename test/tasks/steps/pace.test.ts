/** The pace of the service's own waits on upstreams (src/providers/pace.ts), as the steps and adapters use it. */
import { describe, expect, it } from "vitest";
import { pollDelay as bflPollDelay } from "../../../src/providers/bfl/status";
import { paceOf } from "../../../src/providers/pace";
import { ProviderError } from "../../../src/providers/types";
import { backoff } from "../../../src/tasks/steps/outcome";
import { pollFailed } from "../../../src/tasks/steps/poll";
import { T0, task } from "./task";

describe("the upstream pace", () => {
  it("is 1 unless set to a value above 0 and at most 1", () => {
    expect(paceOf({})).toBe(1);
    expect(paceOf({ UPSTREAM_PACE_SCALE: "0.2" })).toBe(0.2);
    for (const v of ["0", "-1", "2", "fast", ""]) expect(paceOf({ UPSTREAM_PACE_SCALE: v })).toBe(1);
  });

  it("scales the task's backoff and an adapter's own poll interval", () => {
    expect([1, 2, 3, 8, 20].map((n) => backoff(n))).toEqual([250, 500, 1000, 15000, 15000]);
    expect([1, 2, 3, 8].map((n) => backoff(n, 0.2))).toEqual([50, 100, 200, 3000]);
    expect(bflPollDelay(0)).toBe(750);
    expect(bflPollDelay(0, 0.2)).toBe(150);
  });

  it("leaves a poll's Retry-After as the upstream said it", () => {
    const rec = { ...task(), step: "poll" as const };
    const refused = new ProviderError("model_rate_limited", "slow down", { retryable: true, retryAfterMs: 2_000 });
    expect(pollFailed(rec, refused, T0, 0.2).rec.next_poll_at).toBe(T0 + 2_000);
    const failed = new ProviderError("model_request_failed", "no answer", { retryable: true });
    expect(pollFailed(rec, failed, T0, 0.2).rec.next_poll_at).toBe(T0 + 50);
  });
});
