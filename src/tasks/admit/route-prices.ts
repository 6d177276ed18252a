/** Each route's price of a request: its meters, a quote's lower prices, a cap, and the drill's route order. */
import type { QuoteRecord } from "../../accounts/quote-rows";
import { type PricedMeter, pricedMeters } from "../../catalog/pricing";
import type { InterfaceFile } from "../../catalog/schema";
import type { CandidateFailure, Selection } from "../../catalog/select";
import type { Env } from "../../env";
import { dec } from "../../lib/decimal";
import type { RoutePlan } from "../../providers/routing";
import type { AdmissionContext } from "./context";

/** An `auto` candidate priced above the cap; a candidate that cannot be priced is left to fail as it would. */
export function overCapFailure(
  selection: Selection,
  cap: string,
  priceOn: (s: Selection) => { estimate: string },
): CandidateFailure | null {
  let estimate: string;
  try {
    estimate = priceOn(selection).estimate;
  } catch {
    return null;
  }
  if (!dec(estimate).gt(cap)) return null;
  return {
    model: selection.model.model,
    code: "over_max_credits",
    param: "/max_credits",
    message: `${selection.model.model} may cost up to ${estimate} credits, above max_credits (${cap}).`,
    received: cap,
    supported: { estimate_credits: estimate },
    error: "invalid_request",
  };
}

/** A route's meters at the quote's unit prices where those are lower: a price raised since the quote does not apply. */
export function atQuotedPrices(meters: PricedMeter[], quote: QuoteRecord): PricedMeter[] {
  const quoted = new Map(quote.lines.map((l) => [l.meter, l.unit_credits]));
  return meters.map((m) => {
    const price = quoted.get(m.meter);
    return price !== undefined && dec(price).lt(m.unit_credits) ? { ...m, unit_credits: price } : m;
  });
}

/**
 * Each live route with the meters that price this request on it (its own price, or the card's).
 * A route whose price list has no option for the request cannot honour it and is left out; when
 * none is left the pricing refusal stands. Test-mode keys are priced at zero.
 */
export function pricedRoutes(
  ctx: AdmissionContext,
  live: RoutePlan[],
  card: InterfaceFile,
  dimensions: Record<string, string>,
  usageKey: string,
): { routes: RoutePlan[]; meters: PricedMeter[][] } {
  const routes: RoutePlan[] = [];
  const meters: PricedMeter[][] = [];
  let refusal: unknown;
  for (const route of live) {
    try {
      const m = pricedMeters({ ...card, pricing: route.pricing ?? card.pricing }, dimensions, usageKey);
      meters.push(ctx.caller.mode === "test" ? m.map((x) => ({ ...x, unit_credits: "0" })) : m);
      routes.push(route);
    } catch (e) {
      refusal ??= e;
    }
  }
  if (routes.length === 0) throw refusal;
  return { routes, meters };
}

/**
 * A drill (fault injection only, never in the regions): `metadata.drill_route` names the provider
 * to try first, so the conformance suite can hold each route of a model to the same cases.
 */
export function drillRouteOrder(env: Env, metadata: Record<string, string> | undefined, routes: RoutePlan[]): RoutePlan[] {
  const first = metadata?.drill_route;
  if (env.SANDBOX_FAULT_INJECTION !== "true" || !first) return routes;
  return [...routes.filter((r) => r.provider === first), ...routes.filter((r) => r.provider !== first)];
}
