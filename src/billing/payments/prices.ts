/**
 * What credits cost: PAYMENTS_CREDITS_PER_UNIT, credits per one unit of each currency sold
 * ("usd:100,eur:105"). The default, "usd:100", is the service's definition of a credit
 * (1 credit = US$0.01, docs/decisions.md). Amounts are integers in the currency's minor unit.
 */
import type { Env } from "../../env";
import { type Decimal, dec, fmt } from "../../lib/decimal";

export const DEFAULT_CREDITS_PER_UNIT = "usd:100";

/** One purchase: at least 5 and at most 10,000 units of the currency (US$5 to US$10,000). */
export const MIN_UNITS = 5;
export const MAX_UNITS = 10_000;

/** Currencies without a minor unit (an amount of 500 JPY is 500, not 5.00). */
const ZERO_DECIMAL = new Set([
  "bif",
  "clp",
  "djf",
  "gnf",
  "jpy",
  "kmf",
  "krw",
  "mga",
  "pyg",
  "rwf",
  "ugx",
  "vnd",
  "vuv",
  "xaf",
  "xof",
  "xpf",
]);
/** Three-decimal currencies need rounding rules of their own: not sold here. */
const THREE_DECIMAL = new Set(["bhd", "jod", "kwd", "omr", "tnd"]);

export interface PriceTable {
  /** In the order configured: the first is the default. */
  currencies: string[];
  creditsPerUnit: Map<string, Decimal>;
}

export class PriceTableInvalid extends Error {}

export function priceTable(env: Pick<Env, "PAYMENTS_CREDITS_PER_UNIT">): PriceTable {
  const raw = env.PAYMENTS_CREDITS_PER_UNIT?.trim() || DEFAULT_CREDITS_PER_UNIT;
  const table: PriceTable = { currencies: [], creditsPerUnit: new Map() };
  for (const part of raw.split(",")) {
    const m = /^\s*([a-zA-Z]{3})\s*:\s*(\d{1,9}(?:\.\d{1,9})?)\s*$/.exec(part);
    const currency = m?.[1]?.toLowerCase();
    if (!m || !currency || THREE_DECIMAL.has(currency) || table.creditsPerUnit.has(currency) || dec(m[2] as string).lte(0)) {
      throw new PriceTableInvalid(`PAYMENTS_CREDITS_PER_UNIT: '${part.trim()}' is not '<currency>:<credits per unit>'.`);
    }
    table.currencies.push(currency);
    table.creditsPerUnit.set(currency, dec(m[2] as string));
  }
  return table;
}

/** 10^exponent: how many minor units make one unit of the currency. */
export function minorPerUnit(currency: string): number {
  return ZERO_DECIMAL.has(currency) ? 1 : 100;
}

/** The bounds of `amount` (minor units) for one purchase in a currency. */
export function amountBounds(currency: string): { min: number; max: number } {
  const per = minorPerUnit(currency);
  return { min: MIN_UNITS * per, max: MAX_UNITS * per };
}

/** Credits bought by `amount` minor units: exact (decimal arithmetic, 9 places). */
export function creditsFor(table: PriceTable, currency: string, amount: number): string {
  const rate = table.creditsPerUnit.get(currency);
  if (!rate) throw new Error(`currency ${currency} is not sold`);
  return fmt(dec(amount).div(minorPerUnit(currency)).times(rate));
}

/** "US$10.00"-style text for pages: the amount in units with its code. */
export function formatMoney(amount: number, currency: string): string {
  const per = minorPerUnit(currency);
  return `${(amount / per).toFixed(per === 1 ? 0 : 2)} ${currency.toUpperCase()}`;
}
