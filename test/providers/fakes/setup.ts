/**
 * vitest globalSetup of the `providers` project: starts every fake upstream in this folder (a
 * module exporting `provider`, `start` and optionally `bindings`) and provides its URL as
 * `fake:<provider>` and its extra Worker bindings (a webhook secret, a JWKS URL) as `fake:<provider>:bindings`.
 */
import { readdirSync } from "node:fs";
import type { TestProject } from "vitest/node";
import type { RunningFake } from "./kit";

export const FAKES_DIR = new URL(".", import.meta.url).pathname;

/** Provider names that have a fake here (file name = provider name). */
export function fakeProviders(): string[] {
  return readdirSync(FAKES_DIR)
    .filter((f) => f.endsWith(".ts") && !["kit.ts", "setup.ts"].includes(f))
    .map((f) => f.slice(0, -3));
}

const running: RunningFake[] = [];

export async function setup(project: TestProject) {
  for (const name of fakeProviders()) {
    // A path built at run time from the folder's listing, not a pattern for the bundler to expand.
    const mod = (await import(/* @vite-ignore */ `${FAKES_DIR}${name}.ts`)) as {
      provider: string;
      start(): Promise<RunningFake>;
      bindings?: (url: string) => Record<string, string>;
    };
    const fake = await mod.start();
    running.push(fake);
    const provide = project.provide as (key: string, value: string) => void;
    provide(`fake:${mod.provider}`, fake.url);
    provide(`fake:${mod.provider}:bindings`, JSON.stringify(mod.bindings?.(fake.url) ?? {}));
  }
}

export async function teardown() {
  await Promise.all(running.map((f) => f.close()));
}
