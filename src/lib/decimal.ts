/**
 * Credits are exact decimals. Every amount in the ledger passes through here; nothing in the
 * money path uses JavaScript numbers.
 */
import Big from "big.js";

/** Ledger precision: amounts are kept to 9 decimal places. */
export const CREDIT_SCALE = 9;
const DECIMAL_PATTERN = /^\d{1,15}(\.\d{1,9})?$/;

Big.DP = CREDIT_SCALE;
Big.RM = Big.roundHalfUp;
Big.NE = -30;
Big.PE = 40;

export type Decimal = Big;

export function isDecimalString(value: string): boolean {
  return DECIMAL_PATTERN.test(value);
}

export function dec(value: string | number | Big): Big {
  return new Big(value);
}

/** Canonical text of an amount: no exponent, no trailing zeros, at least "0". */
export function fmt(value: Big): string {
  const fixed = value.round(CREDIT_SCALE, Big.roundHalfUp).toFixed(CREDIT_SCALE);
  const trimmed = fixed.replace(/\.?0+$/, "");
  return trimmed === "" || trimmed === "-" ? "0" : trimmed;
}

export function sum(values: readonly (string | Big)[]): Big {
  return values.reduce<Big>((acc, v) => acc.plus(v), new Big(0));
}

export const ZERO = new Big(0);
