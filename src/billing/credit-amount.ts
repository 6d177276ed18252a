/**
 * A credit amount as a request may send it: a decimal string ("12.5") or a JSON number (12.5).
 * Users send numbers; answers keep the spec's decimal strings, so a number becomes the same
 * string at once and nothing after validation sees the difference. A number is read as it is
 * written in the JSON (JavaScript's shortest round-trip form), never as a binary fraction's
 * expansion; one with more than 9 decimals is refused like such a string.
 */
import { z } from "@hono/zod-openapi";
import { isDecimalString } from "../lib/decimal";

/** A JSON number as the decimal it denotes: 12.5 → "12.5", 1e-7 → "0.0000001"; null when not a plain non-negative decimal. */
export function numberAsDecimal(n: number): string | null {
  if (!Number.isFinite(n) || n < 0) return null;
  let text = String(n);
  const exp = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (exp) {
    const [, whole, frac = "", power] = exp;
    const digits = `${whole}${frac}`;
    const point = (whole as string).length + Number(power);
    text =
      point <= 0
        ? `0.${"0".repeat(-point)}${digits}`
        : point >= digits.length
          ? `${digits}${"0".repeat(point - digits.length)}`
          : `${digits.slice(0, point)}.${digits.slice(point)}`;
    text = text.replace(/^0+(?=\d)/, "");
  }
  return isDecimalString(text) ? text : null;
}

const MESSAGE = 'must be a non-negative decimal (a number such as 12.5, or a string such as "12.5") with at most 9 decimals';

/** The input schema: either form in, a decimal string out. */
export const CreditAmountInput = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const text = typeof v === "number" ? numberAsDecimal(v) : isDecimalString(v) ? v : null;
  if (text === null) {
    ctx.addIssue({ code: "custom", message: MESSAGE });
    return z.NEVER;
  }
  return text;
});
