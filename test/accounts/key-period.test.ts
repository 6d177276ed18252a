/** Periods of a key's credit limit, in UTC: days from 00:00, weeks from Monday, months from the 1st. */
import { describe, expect, it } from "vitest";
import { periodWindow } from "../../src/accounts/key-period";

const at = (iso: string) => Date.parse(iso);

describe("periodWindow", () => {
  it("a day runs from 00:00 UTC to the next 00:00", () => {
    expect(periodWindow("day", at("2026-03-14T23:59:59.999Z"))).toEqual({
      started_at: "2026-03-14T00:00:00.000Z",
      resets_at: "2026-03-15T00:00:00.000Z",
    });
    expect(periodWindow("day", at("2026-03-15T00:00:00.000Z")).started_at).toBe("2026-03-15T00:00:00.000Z");
  });

  it("a week starts on Monday, Sunday included in the week before it", () => {
    // 2026-03-15 is a Sunday; 2026-03-09 a Monday.
    expect(periodWindow("week", at("2026-03-15T12:00:00Z"))).toEqual({
      started_at: "2026-03-09T00:00:00.000Z",
      resets_at: "2026-03-16T00:00:00.000Z",
    });
    expect(periodWindow("week", at("2026-03-16T00:00:00Z")).started_at).toBe("2026-03-16T00:00:00.000Z");
    // Across a month and a year.
    expect(periodWindow("week", at("2027-01-01T08:00:00Z"))).toEqual({
      started_at: "2026-12-28T00:00:00.000Z",
      resets_at: "2027-01-04T00:00:00.000Z",
    });
  });

  it("a month starts on the 1st, whatever its length", () => {
    expect(periodWindow("month", at("2028-02-29T23:00:00Z"))).toEqual({
      started_at: "2028-02-01T00:00:00.000Z",
      resets_at: "2028-03-01T00:00:00.000Z",
    });
    expect(periodWindow("month", at("2026-12-31T23:59:59Z")).resets_at).toBe("2027-01-01T00:00:00.000Z");
  });

  it("total never resets", () => {
    expect(periodWindow("total", at("2026-03-14T10:00:00Z"))).toEqual({ started_at: null, resets_at: null });
  });
});
