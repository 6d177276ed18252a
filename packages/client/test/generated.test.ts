/**
 * The committed types are what the server's route declarations give today: regenerating them
 * from the app's own /openapi.json changes nothing (else: `npm run client:generate`).
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = new URL("../../../", import.meta.url).pathname;
const script = join(root, "packages/client/scripts/generate.ts");
const generated = join(root, "packages/client/src/generated");

async function check(dir?: string) {
  try {
    const out = await run(join(root, "node_modules/.bin/tsx"), [script, "--check", ...(dir ? ["--dir", dir] : [])], {
      cwd: root,
    });
    return { code: 0, ...out };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe.concurrent("packages/client/src/generated", () => {
  it("matches the OpenAPI document of the current route declarations", async () => {
    const result = await check();
    expect(result.stderr, result.stderr).not.toContain("stale");
    expect(result.code).toBe(0);
  }, 120_000);

  it("is reported stale, with how to regenerate, when it differs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "client-generated-"));
    for (const f of ["openapi.ts", "operations.ts"]) copyFileSync(join(generated, f), join(dir, f));
    writeFileSync(
      join(dir, "operations.ts"),
      readFileSync(join(dir, "operations.ts"), "utf8").replace("getTask: {", "getTaskRenamed: {"),
    );
    const result = await check(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("operations.ts");
    expect(result.stderr).toContain("npm run client:generate");
  }, 120_000);
});
