/**
 * The built-in reviewer's list (catalog-data/safety/builtin-terms.json, checked with the rest of
 * the catalog) and the text normalisation it matches on. A term matches as whole words, ignoring
 * case, after Unicode normalisation, so that trivial obfuscation (full-width or other
 * compatibility forms, zero-width and other invisible characters, dash variants, a few Cyrillic
 * and Greek look-alikes of Latin letters) does not slip past it. It is a deterministic list for
 * exercising the refusal path, not a classifier.
 */
import { z } from "zod";
import { CATEGORIES } from "./categories";

/** Always flagged by the built-in reviewer, whatever the list holds (the way test card numbers work). */
export const TEST_TERM = "sandbox-unsafe-test";

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD");

export const SafetyTermEntry = z
  .object({
    term: z.string().trim().min(1).max(200).optional(),
    /** A regular expression (no flags: matching ignores case), over the normalised text. */
    pattern: z.string().min(1).max(500).optional(),
    category: z.string().refine((c) => CATEGORIES.includes(c), { message: `must be one of ${CATEGORIES.join(", ")}` }),
    /** Why the entry belongs to the category: where its definition comes from. */
    source: z.string().min(1),
    checked_at: isoDate,
    note: z.string().optional(),
  })
  .strict()
  .superRefine((e, ctx) => {
    if ((e.term === undefined) === (e.pattern === undefined)) {
      ctx.addIssue({ code: "custom", path: ["term"], message: "give exactly one of term or pattern" });
    }
    if (e.pattern !== undefined) {
      try {
        new RegExp(e.pattern, "iu");
      } catch (err) {
        ctx.addIssue({ code: "custom", path: ["pattern"], message: `not a valid regular expression (${String(err)})` });
      }
    }
  });
export type SafetyTermEntry = z.infer<typeof SafetyTermEntry>;

export const SafetyTermsFile = z
  .object({
    description: z.string().min(1),
    entries: z.array(SafetyTermEntry).min(1),
  })
  .strict();

/** Cyrillic and Greek letters drawn like Latin ones, folded before matching. */
const LOOK_ALIKES: Record<string, string> = {
  а: "a",
  е: "e",
  ё: "e",
  і: "i",
  ј: "j",
  к: "k",
  о: "o",
  р: "p",
  с: "c",
  у: "y",
  х: "x",
  ѕ: "s",
  ԁ: "d",
  α: "a",
  ι: "i",
  ο: "o",
  ρ: "p",
};
const LOOK_ALIKE_CLASS = new RegExp(`[${Object.keys(LOOK_ALIKES).join("")}]`, "gu");

/**
 * The form both the list and the reviewed text are compared in: NFKC, without invisible
 * (format) characters, dashes as `-`, lower case, look-alikes folded, whitespace runs as one space.
 */
export function normalizeText(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/\p{Cf}/gu, "")
    .replace(/\p{Pd}/gu, "-")
    .toLowerCase()
    .replace(LOOK_ALIKE_CLASS, (c) => LOOK_ALIKES[c] ?? c)
    .replace(/\s+/gu, " ");
}

export interface TermMatcher {
  category: string;
  regex: RegExp;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whole words: no letter, digit or underscore right before or after. */
function wholeWords(source: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`, "iu");
}

export function compileTerms(entries: readonly SafetyTermEntry[]): TermMatcher[] {
  const matchers: TermMatcher[] = [{ category: "test", regex: wholeWords(escapeRegex(TEST_TERM)) }];
  for (const e of entries) {
    const source = e.term !== undefined ? escapeRegex(normalizeText(e.term)) : (e.pattern as string);
    matchers.push({ category: e.category, regex: wholeWords(source) });
  }
  return matchers;
}
