/** The pure rules of key limits: thresholds crossed, and what a managing key may hand out. */
import { describe, expect, it } from "vitest";
import { crossedThresholds, normalizeLimits, widerThan } from "../../src/accounts/key-limits";

describe("crossedThresholds", () => {
  it("names each threshold passed by one step, once", () => {
    expect(crossedThresholds("10", "0", "4.99")).toEqual([]);
    expect(crossedThresholds("10", "4.99", "5")).toEqual([50]);
    expect(crossedThresholds("10", "5", "10")).toEqual([80, 100]);
    expect(crossedThresholds("10", "0", "10")).toEqual([50, 80, 100]);
    expect(crossedThresholds("10", "10", "10")).toEqual([]);
    expect(crossedThresholds("0", "0", "0")).toEqual([]);
  });
});

describe("widerThan", () => {
  const own = normalizeLimits({ credits: "10", period: "day", models: ["a", "b"] });
  it("an unlimited manager hands out anything", () => {
    expect(widerThan(null, null)).toBeNull();
  });
  it("a limited manager: at most its credits, the same period, a subset of its lists", () => {
    expect(widerThan(normalizeLimits({ credits: "10", period: "day", models: ["b"] }), own)).toBeNull();
    expect(widerThan(null, own)?.param).toBe("/limits/credits");
    expect(widerThan(normalizeLimits({ credits: "10.000000001", period: "day", models: ["a"] }), own)?.param).toBe(
      "/limits/credits",
    );
    expect(widerThan(normalizeLimits({ credits: "1", period: "week", models: ["a"] }), own)?.param).toBe("/limits/period");
    expect(widerThan(normalizeLimits({ credits: "1", period: "day" }), own)?.param).toBe("/limits/models");
    expect(widerThan(normalizeLimits({ credits: "1", period: "day", models: ["a", "c"] }), own)?.param).toBe("/limits/models/1");
  });
});
