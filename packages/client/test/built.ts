/**
 * The client's dist/ for the tests that run it as a user would (the CLI end to end, the packed
 * tarball): `npm test` builds it first; a file run alone builds it when its sources are newer.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

/** packages/client/ */
export const clientDir = new URL("../", import.meta.url).pathname;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

export async function ensureBuilt(): Promise<void> {
  const cli = join(clientDir, "dist/cli.js");
  if (existsSync(cli) && statSync(cli).mtimeMs >= newestMtime(join(clientDir, "src"))) return;
  await promisify(execFile)(join(clientDir, "node_modules/.bin/tsc"), ["-p", clientDir], { cwd: clientDir });
}
