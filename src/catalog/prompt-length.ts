/**
 * A prompt's length in the unit its card's limit is published in, counted with the card's counter.
 *
 * Characters are counted exactly. Tokens depend on a tokenizer this service does not run, so
 * `approximate_tokens` is a lower bound: a prompt is refused only when it is certainly over the
 * limit, never when the model would have taken it. The bound rests on two properties shared by
 * the tokenizers of the models carded in tokens (byte-level BPE with a pre-tokenizer that splits
 * at whitespace, and SentencePiece splitting at whitespace):
 *  - no token spans two words: each run of non-whitespace characters takes at least one token;
 *  - no token covers more than MAX_TOKEN_BYTES bytes of UTF-8, so a run of b bytes takes at
 *    least ceil(b / MAX_TOKEN_BYTES) tokens.
 * The true count is usually several times higher (about four characters a token for English); the
 * difference is the price of never refusing a prompt that fits.
 */
import type { z } from "zod";
import type { PromptSpec } from "./schema";

/** Generous: the longest entries of common BPE vocabularies are well below this. */
export const MAX_TOKEN_BYTES = 128;

/**
 * Words are runs of anything but Unicode whitespace. A run of whitespace alone (a no-break space
 * between two spaces, say) is no word: tokenizers merge it with the whitespace around it.
 */
const WORD = /\S+/g;
const utf8 = new TextEncoder();

/** Unicode code points, not UTF-16 units. */
export function unicodeLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The fewest tokens any whitespace-splitting tokenizer with tokens of at most MAX_TOKEN_BYTES can use. */
export function tokenLowerBound(text: string): number {
  let tokens = 0;
  for (const [word] of text.matchAll(WORD)) {
    // Most words are short: a UTF-16 unit is at most three UTF-8 bytes, so skip the encoder when that fits.
    const bytes = word.length * 3 <= MAX_TOKEN_BYTES ? 1 : utf8.encode(word).length;
    tokens += Math.max(1, Math.ceil(bytes / MAX_TOKEN_BYTES));
  }
  return tokens;
}

export interface PromptLength {
  /** The count in the card's unit. */
  length: number;
  unit: "characters" | "tokens";
  /** True when `length` is a lower bound rather than the exact figure. */
  lower_bound: boolean;
}

/** Counts `text` as the card's prompt spec says. */
export function promptLength(text: string, spec: z.output<typeof PromptSpec>): PromptLength {
  switch (spec.counter) {
    case "approximate_tokens":
      return { length: tokenLowerBound(text), unit: "tokens", lower_bound: true };
    case "utf16_units":
      return { length: text.length, unit: "characters", lower_bound: false };
    case "unicode_characters":
      return { length: unicodeLength(text), unit: "characters", lower_bound: false };
  }
}
