/**
 * Size as a symptom: a source file past 500 lines hides more than one concern, and a Durable
 * Object past 400 holds rules that belong in a store beside it (docs/architecture.md). Generated
 * files are left out.
 */
import { describe, expect, it } from "vitest";

const SOURCES = Object.fromEntries(
  Object.entries(
    import.meta.glob<string>(["/src/**/*.ts", "/src/**/*.tsx", "/packages/client/src/**/*.ts", "!**/generated/**"], {
      query: "?raw",
      import: "default",
      eager: true,
    }),
  ).map(([path, text]) => [path.slice(1), text]),
);

const MAX_LINES = 500;
const MAX_OBJECT_LINES = 400;
const lines = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

describe("source file sizes", () => {
  it("reads the sources of the Worker and of the client, not the generated ones", () => {
    expect(Object.keys(SOURCES)).toContain("src/index.ts");
    expect(Object.keys(SOURCES)).toContain("packages/client/src/client.ts");
    expect(Object.keys(SOURCES).some((f) => f.includes("/generated/"))).toBe(false);
  });

  it(`keeps every source file within ${MAX_LINES} lines`, () => {
    const over = Object.entries(SOURCES)
      .filter(([, text]) => lines(text) > MAX_LINES)
      .map(([file, text]) => `${file}: ${lines(text)} lines`);
    expect(over).toEqual([]);
  });

  it(`keeps every Durable Object class file within ${MAX_OBJECT_LINES} lines`, () => {
    const objects = Object.entries(SOURCES).filter(([, text]) => /\bextends DurableObject\b/.test(text));
    expect(objects.length).toBeGreaterThanOrEqual(9);
    const over = objects
      .filter(([, text]) => lines(text) > MAX_OBJECT_LINES)
      .map(([file, text]) => `${file}: ${lines(text)} lines`);
    expect(over).toEqual([]);
  });
});
