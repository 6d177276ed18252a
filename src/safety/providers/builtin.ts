/**
 * The built-in reviewer: flags text that contains a term of the documented list
 * (catalog-data/safety/builtin-terms.json) and always the test term `sandbox-unsafe-test`.
 * Deterministic and local (nothing leaves the Worker, nothing is charged): it serves test-mode
 * keys and deployments that configure no moderation provider, so that clients can exercise the
 * refusal path. It is not a classifier, and it does not look at images.
 */
import type { ItemVerdict, ModerationProvider, ModerationResult, ReviewItem } from "../provider";
import { compileTerms, normalizeText, type SafetyTermEntry, type TermMatcher } from "../terms";

/** Compiled once per list (the catalog bundle is kept per isolate, and its list with it). */
const compiled = new WeakMap<readonly SafetyTermEntry[], TermMatcher[]>();
const NO_TERMS: readonly SafetyTermEntry[] = [];

export class BuiltinReviewer implements ModerationProvider {
  readonly name = "builtin";
  readonly external = false;
  readonly reviewsImages = false;
  private readonly matchers: TermMatcher[];

  constructor(entries: readonly SafetyTermEntry[] = NO_TERMS) {
    let m = compiled.get(entries);
    if (!m) {
      m = compileTerms(entries);
      compiled.set(entries, m);
    }
    this.matchers = m;
  }

  async review(items: ReviewItem[]): Promise<ModerationResult> {
    const verdicts: ItemVerdict[] = [];
    const unreviewed: string[] = [];
    for (const item of items) {
      if (item.kind !== "text") {
        unreviewed.push(item.param);
        continue;
      }
      const text = normalizeText(item.text);
      const flagged = [...new Set(this.matchers.filter((m) => m.regex.test(text)).map((m) => m.category))];
      verdicts.push({ param: item.param, flagged, scores: Object.fromEntries(flagged.map((c) => [c, 1])) });
    }
    return { verdicts, unreviewed };
  }
}
