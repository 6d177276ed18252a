/** Six-digit sign-in codes, uniform over 000000–999999. */

export const CODE_DIGITS = 6;
const RANGE = 10 ** CODE_DIGITS;
/** The largest multiple of RANGE below 2^32: values at or above it are drawn again, so no code is likelier. */
const LIMIT = Math.floor(0x1_0000_0000 / RANGE) * RANGE;

export function generateCode(): string {
  const buf = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buf);
    const n = buf[0] as number;
    if (n < LIMIT) return String(n % RANGE).padStart(CODE_DIGITS, "0");
  }
}

/** What a person may type: digits, with spaces or dashes between groups tolerated. */
export function normaliseCode(input: string): string | null {
  const digits = input.replace(/[\s-]/g, "");
  return /^\d{6}$/.test(digits) ? digits : null;
}
