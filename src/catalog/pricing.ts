/**
 * Prices from a card's pricing options. An option applies when every one of its dimensions
 * matches the request; the most specific applicable option wins.
 */
import { ApiError } from "../errors/api-error";
import { dec, fmt } from "../lib/decimal";
import type { InterfaceFile, Pricing } from "./schema";

const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`);

/**
 * The price in force at `at`: the last schedule step whose day has begun (00:00 UTC), else the
 * base options. Admission reads it once, so a task's estimate and its charge use the price in
 * force when it was admitted.
 */
export function pricingAt<P extends Pricing>(pricing: P, at = Date.now()): P {
  let options = pricing.options;
  for (const step of pricing.schedule ?? []) if (dayStart(step.effective_from) <= at) options = step.options;
  return options === pricing.options ? pricing : { ...pricing, options };
}

/**
 * The `context_tier` a prompt of this many tokens falls in: options may carry one such as
 * `above_272k`, which applies when the prompt is longer than that many thousand tokens; the
 * highest tier passed wins.
 */
export function contextTier(pricing: Pricing, promptTokens: number): string | undefined {
  let best: { tier: string; above: number } | undefined;
  for (const o of pricing.options) {
    const tier = o.dimensions.context_tier;
    const m = tier ? /^above_(\d+)k$/.exec(tier) : null;
    if (!tier || !m) continue;
    const above = Number(m[1]) * 1000;
    if (promptTokens > above && (!best || above > best.above)) best = { tier, above };
  }
  return best?.tier;
}

/** The unit price of the most specific option matching `dimensions`, in the price in force at `at`. */
export function unitPrice(card: InterfaceFile, dimensions: Record<string, string>, at = Date.now()): string {
  let best: { credits: string; specificity: number } | null = null;
  for (const option of pricingAt(card.pricing, at).options) {
    const keys = Object.keys(option.dimensions);
    if (keys.every((k) => dimensions[k] === option.dimensions[k])) {
      if (!best || keys.length > best.specificity) best = { credits: option.unit_credits, specificity: keys.length };
    }
  }
  if (!best) {
    throw new ApiError("unsupported_option", "The model has no price for this combination of options.", {
      details: { dimensions },
    });
  }
  return best.credits;
}

export interface UsageLine {
  meter: string;
  quantity: string;
  unit: string;
  billed_amount_credits: string;
}

export function line(meter: string, unit: string, quantity: string | number, unitCredits: string): UsageLine {
  return {
    meter,
    quantity: String(quantity),
    unit,
    billed_amount_credits: fmt(dec(unitCredits).times(String(quantity))),
  };
}

/** One priced meter of a task: its unit price and which usage counter measures it. */
export interface PricedMeter {
  meter: string;
  unit: string;
  unit_credits: string;
  /** The usage counter (as the provider reports it) that gives the quantity. */
  usage_key: string;
}

export interface Estimate {
  meters: PricedMeter[];
  /** Estimated quantity per usage key. */
  quantities: Record<string, number>;
}

const TOKEN_KEYS: Record<string, string> = {
  input: "input_tokens",
  output: "output_tokens",
  cache_read: "cache_read_tokens",
  cache_write: "cache_creation_tokens",
  reasoning: "reasoning_tokens",
};

/**
 * The meters a card bills, at the price in force now: token cards bill each token type at its
 * own price (in the context tier the estimated prompt falls in); every other card bills its one
 * meter at the price of the options that match the request's dimensions.
 */
export function pricedMeters(
  card: InterfaceFile,
  dimensions: Record<string, string>,
  usageKey: string,
  promptTokens = 0,
): PricedMeter[] {
  const priced = { ...card, pricing: pricingAt(card.pricing) };
  if (priced.pricing.meter === "tokens") {
    const tier = contextTier(priced.pricing, promptTokens);
    const types = [...new Set(priced.pricing.options.map((o) => o.dimensions.token_type))].filter(
      (t): t is string => t !== undefined && TOKEN_KEYS[t] !== undefined,
    );
    return types.map((t) => ({
      meter: TOKEN_KEYS[t] as string,
      unit: priced.pricing.unit,
      unit_credits: unitPrice(priced, { token_type: t, ...(tier ? { context_tier: tier } : {}) }),
      usage_key: TOKEN_KEYS[t] as string,
    }));
  }
  return [
    { meter: priced.pricing.meter, unit: priced.pricing.unit, unit_credits: unitPrice(priced, dimensions), usage_key: usageKey },
  ];
}

export function estimateCredits(e: Estimate): string {
  return fmt(e.meters.reduce((acc, m) => acc.plus(dec(m.unit_credits).times(String(e.quantities[m.usage_key] ?? 0))), dec(0)));
}

/** Usage lines from what the provider reports, one per priced meter. */
export function usageLines(meters: PricedMeter[], usage: Record<string, number>): UsageLine[] {
  return meters.map((m) => line(m.meter, m.unit, usage[m.usage_key] ?? 0, m.unit_credits));
}
