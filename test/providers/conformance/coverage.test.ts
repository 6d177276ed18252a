/**
 * The conformance suite (test/providers/conformance.ts) runs one file per subjects module: every
 * provider with a fake has subjects, and every subjects module has its file here, so that no
 * route is left out of the suite when a provider or a file is added.
 */
/// <reference types="vite/client" />
import { expect, it } from "vitest";
import type { Subject } from "../subject";

const modules = import.meta.glob<{ subjects: Subject[] }>("../subjects/*.ts", { eager: true });
const SUBJECTS = Object.values(modules).flatMap((m) => m.subjects);
/** The suite's files, by name (not imported: each registers its own tests where it runs). */
const files = Object.keys(import.meta.glob(["./*.test.ts", "!./coverage.test.ts"]));

it("covers the sandbox and every provider with a fake", () => {
  const providers = new Set(SUBJECTS.map((s) => s.provider));
  expect(providers.has("sandbox")).toBe(true);
  for (const name of [
    "fal",
    "replicate",
    "openai",
    "bfl",
    "byteplus",
    "volcengine",
    "google",
    "anthropic",
    "minimax",
    "dashscope",
    "luma",
    "runway",
    "kie",
  ])
    expect(providers.has(name), name).toBe(true);
});

it("runs every subjects module in a file of its own", () => {
  const expected = Object.keys(modules).map((p) => p.replace("../subjects/", "./").replace(/\.ts$/, ".test.ts"));
  expect(expected.length).toBeGreaterThan(0);
  expect(files.sort()).toEqual(expected.sort());
});
