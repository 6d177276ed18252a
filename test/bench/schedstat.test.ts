/**
 * The benchmarks' reading of the kernel's per-thread scheduler counters (bench/lib/schedstat.ts):
 * CPU time is the first of the three fields, in nanoseconds; anything else is refused.
 */
import { describe, expect, it } from "vitest";
import { cpuMsPerRequest, schedstatCpuNs } from "../../bench/lib/schedstat";

describe("schedstatCpuNs", () => {
  it("reads the time on CPU, the first field", () => {
    expect(schedstatCpuNs("1184567893 20345611 9123\n")).toBe(1184567893);
    expect(schedstatCpuNs("0 0 0")).toBe(0);
  });

  it("refuses what is not a schedstat line", () => {
    for (const text of ["", "\n", "abc 1 2", "-5 1 2", "1.5 2 3"]) expect(() => schedstatCpuNs(text)).toThrow(/schedstat/);
  });
});

describe("cpuMsPerRequest", () => {
  it("shares the CPU spent between two readings among the requests, in milliseconds", () => {
    expect(cpuMsPerRequest(1_000_000_000, 1_300_000_000, 200)).toBe(1.5);
  });

  it("refuses a block without requests", () => {
    expect(() => cpuMsPerRequest(0, 10, 0)).toThrow();
  });
});
