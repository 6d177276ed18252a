/**
 * The categories content review speaks of: OpenAI's moderation taxonomy, the Llama Guard 3 hazards
 * that have no place in it under names of their own, and `test` (the built-in reviewer's test
 * term). Every provider's verdict is mapped onto this one vocabulary, and tenant policies name it.
 */

/** OpenAI's moderation categories (omni-moderation), as its API names them. */
export const OPENAI_CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
] as const;

/** Llama Guard 3 hazards OpenAI's taxonomy has no category for. */
export const EXTRA_CATEGORIES = [
  "specialized_advice",
  "privacy",
  "intellectual_property",
  "elections",
  "code_interpreter_abuse",
] as const;

/** The built-in reviewer's test term (`sandbox-unsafe-test`) is flagged under this category. */
export const TEST_CATEGORY = "test";

export const CATEGORIES: readonly string[] = [...OPENAI_CATEGORIES, ...EXTRA_CATEGORIES, TEST_CATEGORY];

export function isCategory(value: string): boolean {
  return CATEGORIES.includes(value);
}

/**
 * Llama Guard 3's hazard codes (the MLCommons taxonomy it was trained on) mapped onto the
 * vocabulary above, one row each.
 */
export const LLAMA_GUARD_CATEGORIES: Readonly<Record<string, string>> = {
  S1: "illicit/violent", // violent crimes
  S2: "illicit", // non-violent crimes
  S3: "sexual", // sex-related crimes
  S4: "sexual/minors", // child sexual exploitation
  S5: "harassment", // defamation
  S6: "specialized_advice", // specialized financial, medical or legal advice
  S7: "privacy", // privacy
  S8: "intellectual_property", // intellectual property
  S9: "illicit/violent", // indiscriminate weapons
  S10: "hate", // hate
  S11: "self-harm", // suicide and self-harm
  S12: "sexual", // sexual content
  S13: "elections", // elections
  S14: "code_interpreter_abuse", // code interpreter abuse
};
