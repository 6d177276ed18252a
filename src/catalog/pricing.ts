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
