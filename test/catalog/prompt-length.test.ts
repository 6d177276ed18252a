/** Prompt limits counted in the card's unit; a token count that never exceeds the true count. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_TOKEN_BYTES, promptLength, tokenLowerBound, unicodeLength } from "../../src/catalog/prompt-length";
import { PromptSpec } from "../../src/catalog/schema";

const bytes = (s: string) => new TextEncoder().encode(s).length;

/**
 * The pre-tokenizer of GPT-4-style byte-level BPE (cl100k): a token never crosses one of these
 * pieces, so a piece of b bytes takes at least max(1, ceil(b / MAX_TOKEN_BYTES)) tokens.
 */
const PIECES = /'(?:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/giu;
const pieceBound = (s: string) =>
  [...s.matchAll(PIECES)].reduce((n, [p]) => n + Math.max(1, Math.ceil(bytes(p) / MAX_TOKEN_BYTES)), 0);

describe("tokenLowerBound", () => {
  it("counts one token per word, more for words longer than any token", () => {
    expect(tokenLowerBound("")).toBe(0);
    expect(tokenLowerBound("   \n\t ")).toBe(0);
    expect(tokenLowerBound("a lighthouse at dawn")).toBe(4);
    expect(tokenLowerBound("  spaced\n\nout\twords  ")).toBe(3);
    // A no-break space is whitespace to tokenizers: alone between spaces it is merged, not a word.
    expect(tokenLowerBound("x \u00a0\u00a0 \u00a0 y")).toBe(2);
    expect(tokenLowerBound("x".repeat(MAX_TOKEN_BYTES))).toBe(1);
    expect(tokenLowerBound("x".repeat(MAX_TOKEN_BYTES + 1))).toBe(2);
    // No spaces in Chinese: a run of 300 characters is 900 bytes, so at least 8 tokens.
    expect(tokenLowerBound("灯".repeat(300))).toBe(Math.ceil(900 / MAX_TOKEN_BYTES));
    // Astral characters: four bytes each.
    expect(tokenLowerBound("😀".repeat(64))).toBe(2);
  });

  it("never exceeds the pieces a GPT-style pre-tokenizer makes, nor the bytes or characters", () => {
    const alphabet = fc.constantFrom(..."ab Zé1 9,.!?'\n\t\u00a0灯火😀-_/:".split(""), "  ", "abc", "xyz".repeat(50));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 300 }).map((parts) => parts.join("")),
        (text) => {
          const n = tokenLowerBound(text);
          expect(n).toBeLessThanOrEqual(pieceBound(text));
          expect(n).toBeLessThanOrEqual(unicodeLength(text));
          expect(n).toBeLessThanOrEqual(bytes(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("promptLength", () => {
  const spec = (p: Record<string, unknown>) => PromptSpec.parse({ limit: 10, ...p });

  it("uses the card's counter: code points, UTF-16 units, or the token lower bound", () => {
    expect(promptLength("😀😀 ab", spec({}))).toEqual({ length: 5, unit: "characters", lower_bound: false });
    expect(promptLength("😀😀 ab", spec({ counter: "utf16_units" }))).toEqual({
      length: 7,
      unit: "characters",
      lower_bound: false,
    });
    expect(promptLength("😀😀 ab", spec({ unit: "tokens", counter: "approximate_tokens", counter_is_exact: false }))).toEqual({
      length: 2,
      unit: "tokens",
      lower_bound: true,
    });
  });

  it("a card's unit and counter must agree", () => {
    expect(PromptSpec.safeParse({ limit: 10, unit: "tokens" }).success).toBe(false);
    expect(
      PromptSpec.safeParse({ limit: 10, unit: "characters", counter: "approximate_tokens", counter_is_exact: false }).success,
    ).toBe(false);
    expect(PromptSpec.safeParse({ limit: 10, unit: "tokens", counter: "approximate_tokens" }).success).toBe(false);
    expect(
      PromptSpec.safeParse({ limit: 10, unit: "tokens", counter: "approximate_tokens", counter_is_exact: false }).success,
    ).toBe(true);
  });
});
