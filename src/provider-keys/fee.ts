/**
 * What a task served on a tenant's own key is charged: not the card price (the tenant pays its
 * provider), but BYOK_FEE_PERCENT of it as the platform fee, its own usage line `byok_fee`.
 * The percentage is read at admission and kept on the route, so a change of configuration never
 * changes the price of a task already admitted.
 */
import { line, type UsageLine } from "../catalog/pricing";
import type { Env } from "../env";
import { dec, fmt, isDecimalString } from "../lib/decimal";
import type { RoutePlan } from "../providers/routing";

export const BYOK_FEE_METER = "byok_fee";

/** BYOK_FEE_PERCENT: a decimal from 0 to 100; unset (or not such a number) is 0. */
export function byokFeePercent(env: Env): string {
  const raw = env.BYOK_FEE_PERCENT?.trim();
  if (!raw || !isDecimalString(raw) || dec(raw).gt(100)) return "0";
  return fmt(dec(raw));
}

/** What a route (a task's, or a chat call's) would reserve for `cardEstimate` credits of card price: the fee on a tenant's route. */
export function routeEstimate(
  cardEstimate: string,
  route: RoutePlan | (Pick<RoutePlan, "provider" | "key" | "fee_percent"> & object),
): string {
  if (route.key !== "tenant") return cardEstimate;
  return fmt(
    dec(cardEstimate)
      .times(route.fee_percent ?? "0")
      .div(100),
  );
}

/**
 * The usage lines of a task served on the tenant's key: each meter with its quantity and nothing
 * billed, then the fee, `quantity` being the card price it is a percentage of.
 */
export function tenantKeyLines(lines: UsageLine[], feePercent: string): UsageLine[] {
  const cardPrice = lines.reduce((acc, l) => acc.plus(l.billed_amount_credits), dec(0));
  return [
    ...lines.map((l) => ({ ...l, billed_amount_credits: "0" })),
    line(BYOK_FEE_METER, "credits", fmt(cardPrice), fmt(dec(feePercent).div(100))),
  ];
}
