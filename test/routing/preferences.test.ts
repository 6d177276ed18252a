/** The ordering rules of `provider` preferences, on plain routes: what each field does alone and together. */
import { describe, expect, it } from "vitest";
import { applyPreferences, hasPreferences } from "../../src/routing/preferences";

const routes = [
  { provider: "bfl", price: 3, p50: 900 },
  { provider: "fal", price: 2, p50: null },
  { provider: "replicate", price: 1, p50: 400 },
  { provider: "fal", price: 0.1, p50: 100, key: "tenant" },
];
const figures = { price: (r: (typeof routes)[number]) => r.price, latency: (r: (typeof routes)[number]) => r.p50 };
const names = (rs: typeof routes) => rs.map((r) => `${r.provider}${r.key ? ":tenant" : ""}`);

describe("provider preferences", () => {
  it("say nothing: the incoming order (the card's, with the tenant's keys placed) is kept, and nothing is asked", () => {
    expect(hasPreferences(undefined)).toBe(false);
    expect(hasPreferences({ allow_fallbacks: true })).toBe(false);
    let asked = 0;
    const out = applyPreferences(routes, {}, { price: () => ++asked });
    expect(names(out)).toEqual(["bfl", "fal", "replicate", "fal:tenant"]);
    expect(asked).toBe(0);
  });

  it("order first, in its order, then the rest; only and ignore filter", () => {
    expect(names(applyPreferences(routes, { order: ["replicate", "fal"] }))).toEqual(["replicate", "fal", "fal:tenant", "bfl"]);
    expect(names(applyPreferences(routes, { only: ["fal"] }))).toEqual(["fal", "fal:tenant"]);
    expect(names(applyPreferences(routes, { ignore: ["fal", "bfl"] }))).toEqual(["replicate"]);
    expect(applyPreferences(routes, { only: ["google"] })).toEqual([]);
  });

  it("sort orders the routes not in order: price ascending; latency ascending with unmeasured routes last", () => {
    expect(names(applyPreferences(routes, { sort: "price" }, figures))).toEqual(["fal:tenant", "replicate", "fal", "bfl"]);
    expect(names(applyPreferences(routes, { sort: "latency" }, figures))).toEqual(["fal:tenant", "replicate", "bfl", "fal"]);
    expect(names(applyPreferences(routes, { order: ["bfl"], sort: "price" }, figures))).toEqual([
      "bfl",
      "fal:tenant",
      "replicate",
      "fal",
    ]);
  });

  it("allow_fallbacks false: only the ordered providers, or without order only the first route", () => {
    expect(names(applyPreferences(routes, { order: ["replicate"], allow_fallbacks: false }))).toEqual(["replicate"]);
    expect(names(applyPreferences(routes, { sort: "price", allow_fallbacks: false }, figures))).toEqual(["fal:tenant"]);
    expect(names(applyPreferences(routes, { allow_fallbacks: false }))).toEqual(["bfl"]);
  });
});
