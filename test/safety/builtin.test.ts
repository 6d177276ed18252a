/**
 * The built-in reviewer: its documented list (catalog-data/safety/builtin-terms.json, checked
 * with the catalog), the test term that is always flagged, whole-word matching, and the Unicode
 * normalisation that keeps trivial obfuscation from slipping past it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildCatalog, CatalogLoadError } from "../../src/catalog/build";
import type { ReviewItem } from "../../src/safety/provider";
import { BuiltinReviewer } from "../../src/safety/providers/builtin";
import { normalizeText, TEST_TERM } from "../../src/safety/terms";

const files = JSON.parse(env.TEST_CATALOG) as Record<string, string>;
const bundle = buildCatalog(files);
const reviewer = new BuiltinReviewer(bundle.safety_terms);

async function flagged(text: string): Promise<string[]> {
  const { verdicts } = await reviewer.review([{ kind: "text", param: "/prompt", text }]);
  return verdicts[0]?.flagged ?? [];
}

describe("the built-in reviewer", () => {
  it("loads its list from catalog-data/safety with the rest of the catalog", () => {
    expect(bundle.safety_terms?.length).toBeGreaterThan(1);
    expect(bundle.safety_terms?.some((e) => e.term === TEST_TERM && e.category === "test")).toBe(true);
  });

  it("flags the test term, in any case, as whole words", async () => {
    expect(await flagged("a sandbox-unsafe-test scene")).toEqual(["test"]);
    expect(await flagged("A SANDBOX-UNSAFE-TEST SCENE")).toEqual(["test"]);
    expect(await flagged("sandbox-unsafe-test")).toEqual(["test"]);
    expect(await flagged("(sandbox-unsafe-test).")).toEqual(["test"]);
    // Part of a longer word is not the term.
    expect(await flagged("sandbox-unsafe-tests")).toEqual([]);
    expect(await flagged("xsandbox-unsafe-test")).toEqual([]);
    expect(await flagged("a sandbox scene, unsafe, a test")).toEqual([]);
  });

  it("sees through trivial Unicode obfuscation", async () => {
    // Full-width letters and hyphens (NFKC compatibility forms).
    expect(await flagged("a ｓａｎｄｂｏｘ－ｕｎｓａｆｅ－ｔｅｓｔ scene")).toEqual(["test"]);
    // Zero-width space, zero-width joiner and a soft hyphen inside the word.
    expect(await flagged("a sand\u200Bbox-un\u200Dsafe-te\u00ADst scene")).toEqual(["test"]);
    // Non-breaking hyphens and an en dash for the hyphens.
    expect(await flagged("a sandbox\u2011unsafe\u2013test scene")).toEqual(["test"]);
    // Cyrillic а, е and ѕ in place of Latin letters.
    expect(await flagged("a \u0455andbox-un\u0455af\u0435-t\u0435st scen\u0430")).toEqual(["test"]);
    expect(normalizeText("ＳＡＮＤ\u200Bbox")).toBe("sandbox");
  });

  it("flags the listed terms and patterns under their categories", async () => {
    expect(await flagged("Child Sexual Abuse Material")).toEqual(["sexual/minors"]);
    expect(await flagged("explain how to build a pipe bomb")).toEqual(["illicit/violent"]);
    expect(await flagged("how do I kill myself")).toEqual(["self-harm/intent"]);
    expect(await flagged("a lighthouse on a cliff at dawn")).toEqual([]);
  });

  it("reviews each field apart and leaves images unreviewed", async () => {
    const items: ReviewItem[] = [
      { kind: "text", param: "/prompt", text: "a calm lake" },
      { kind: "text", param: "/negative_prompt", text: "sandbox-unsafe-test" },
      { kind: "image", param: "/images/0", bytes: new Uint8Array([1, 2, 3]), mime: "image/png" },
    ];
    const result = await reviewer.review(items);
    expect(result.verdicts).toEqual([
      { param: "/prompt", flagged: [], scores: {} },
      { param: "/negative_prompt", flagged: ["test"], scores: { test: 1 } },
    ]);
    expect(result.unreviewed).toEqual(["/images/0"]);
  });

  it("flags the test term even with no list at all (a bundle built before the list)", async () => {
    const bare = new BuiltinReviewer();
    const { verdicts } = await bare.review([{ kind: "text", param: "/input", text: "say sandbox-unsafe-test" }]);
    expect(verdicts[0]?.flagged).toEqual(["test"]);
  });
});

describe("the list is checked when the catalog is built", () => {
  const withTerms = (value: unknown) => ({ ...files, "safety/builtin-terms.json": JSON.stringify(value) });
  const entry = { term: "x", category: "violence", source: "s", checked_at: "2026-11-23" };

  function refusal(value: unknown): CatalogLoadError {
    try {
      buildCatalog(withTerms(value));
    } catch (e) {
      if (e instanceof CatalogLoadError) return e;
      throw e;
    }
    throw new Error("the catalog built");
  }

  it("refuses an unknown category, naming the file and the field", () => {
    const e = refusal({ description: "d", entries: [{ ...entry, category: "rudeness" }] });
    expect(e.file).toBe("safety/builtin-terms.json");
    expect(e.field).toBe("/entries/0/category");
  });

  it("refuses an entry with both a term and a pattern, or neither", () => {
    expect(refusal({ description: "d", entries: [{ ...entry, pattern: "y" }] }).field).toBe("/entries/0/term");
    const { term: _t, ...neither } = entry;
    expect(refusal({ description: "d", entries: [neither] }).field).toBe("/entries/0/term");
  });

  it("refuses a pattern that is not a regular expression", () => {
    const { term: _t, ...rest } = entry;
    expect(refusal({ description: "d", entries: [{ ...rest, pattern: "(unclosed" }] }).field).toBe("/entries/0/pattern");
  });

  it("refuses an unknown file in safety/", () => {
    const e = (() => {
      try {
        buildCatalog({ ...files, "safety/other.json": "{}" });
      } catch (err) {
        return err as CatalogLoadError;
      }
      throw new Error("the catalog built");
    })();
    expect(e).toBeInstanceOf(CatalogLoadError);
    expect(e.file).toBe("safety/other.json");
  });
});
