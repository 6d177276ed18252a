/**
 * Prices from a card's pricing options. An option applies when every one of its dimensions
 * matches the request; the most specific applicable option wins.
 */
import { ApiError } from "../errors/api-error";
import { dec, fmt } from "../lib/decimal";
import type { InterfaceFile } from "./schema";

export function unitPrice(card: InterfaceFile, dimensions: Record<string, string>): string {
  let best: { credits: string; specificity: number } | null = null;
  for (const option of card.pricing.options) {
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
 * The meters a card bills: token cards bill each token type at its own price; every other card
 * bills its one meter at the price of the options that match the request's dimensions.
 */
export function pricedMeters(card: InterfaceFile, dimensions: Record<string, string>, usageKey: string): PricedMeter[] {
  if (card.pricing.meter === "tokens") {
    return card.pricing.options
      .filter((o) => o.dimensions.token_type && TOKEN_KEYS[o.dimensions.token_type])
      .map((o) => ({
        meter: TOKEN_KEYS[o.dimensions.token_type as string] as string,
        unit: card.pricing.unit,
        unit_credits: o.unit_credits,
        usage_key: TOKEN_KEYS[o.dimensions.token_type as string] as string,
      }));
  }
  return [{ meter: card.pricing.meter, unit: card.pricing.unit, unit_credits: unitPrice(card, dimensions), usage_key: usageKey }];
}

export function estimateCredits(e: Estimate): string {
  return fmt(e.meters.reduce((acc, m) => acc.plus(dec(m.unit_credits).times(String(e.quantities[m.usage_key] ?? 0))), dec(0)));
}

/** Usage lines from what the provider reports, one per priced meter. */
export function usageLines(meters: PricedMeter[], usage: Record<string, number>): UsageLine[] {
  return meters.map((m) => line(m.meter, m.unit, usage[m.usage_key] ?? 0, m.unit_credits));
}
