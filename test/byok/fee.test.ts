/** BYOK_FEE_PERCENT as read (a decimal from 0 to 100, else 0) and the lines of a task served on a tenant's key. */
import { describe, expect, it } from "vitest";
import { line } from "../../src/catalog/pricing";
import type { Env } from "../../src/env";
import { byokFeePercent, routeEstimate, tenantKeyLines } from "../../src/provider-keys/fee";

const withFee = (v: string | undefined) => ({ BYOK_FEE_PERCENT: v }) as unknown as Env;

describe("the platform fee", () => {
  it("reads BYOK_FEE_PERCENT, and 0 for anything that is not a percentage", () => {
    expect(byokFeePercent(withFee(undefined))).toBe("0");
    expect(byokFeePercent(withFee("5"))).toBe("5");
    expect(byokFeePercent(withFee(" 2.50 "))).toBe("2.5");
    expect(byokFeePercent(withFee("100"))).toBe("100");
    for (const bad of ["", "-1", "101", "five", "1e2"]) expect(byokFeePercent(withFee(bad))).toBe("0");
  });

  it("prices a tenant's route at the fee and leaves the platform's at the card price", () => {
    expect(routeEstimate("0.8", { provider: "fal", upstream_model: "m", key: "tenant", fee_percent: "5" })).toBe("0.04");
    expect(routeEstimate("0.8", { provider: "fal", upstream_model: "m" })).toBe("0.8");
  });

  it("bills the meters at nothing and the fee on their card price", () => {
    const lines = [line("images", "image", 2, "0.03"), line("megapixels", "megapixel", "1.5", "0.01")];
    expect(tenantKeyLines(lines, "10")).toEqual([
      { meter: "images", unit: "image", quantity: "2", billed_amount_credits: "0" },
      { meter: "megapixels", unit: "megapixel", quantity: "1.5", billed_amount_credits: "0" },
      { meter: "byok_fee", unit: "credits", quantity: "0.075", billed_amount_credits: "0.0075" },
    ]);
  });
});
