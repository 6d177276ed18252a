/** The `media-api` commands of the README's and docs/sdk.md's shell blocks, for the tests that run them. */
import { readFileSync } from "node:fs";

/** Every command line (continuations joined, comments dropped), `npx` kept. */
export function readmeCommands(): string[] {
  // The README's quick start first (its commands are the ones the quick-start tests run), then the SDK and CLI page.
  const readme = ["../../../README.md", "../../../docs/sdk.md"]
    .map((f) => readFileSync(new URL(f, import.meta.url).pathname, "utf8"))
    .join("\n");
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks
    .flatMap((b) => b.replace(/\\\n\s*/g, " ").split("\n"))
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => /^(npx )?media-api /.test(l));
}

/** The quick start's runnable commands (`npx media-api …`), as argument lists after `media-api`. */
export function quickStart(): string[][] {
  return readmeCommands()
    .filter((c) => c.startsWith("npx media-api "))
    .map((c) => words(c).slice(2));
}

/** Shell words, with "…" and '…' quoting. */
export function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? (m[3] as string));
}

/** The quick start's stand-in for an output of the command before it (`out/task_…-0.mp4`). */
export const PLACEHOLDER = /task_…/;
