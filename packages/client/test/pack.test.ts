/**
 * The SDK as someone outside the repository gets it: `npm pack` of packages/client, installed
 * from the tarball into an empty project with no network (`npm install --offline`: the package
 * has no runtime dependency to fetch), then its client imported by an ES module script and its
 * `media-api` command run from that install.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "./built.js";

const run = promisify(execFile);
const pkg = new URL("../", import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));

/** npm as a user runs it: none of the variables the npm that started this test run set for itself. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) || /^npm_config_cache$/i.test(k)) env[k] = v;
  return { ...env, NO_UPDATE_NOTIFIER: "1", npm_config_update_notifier: "false" };
}

let work: string;
let app: string;

beforeAll(async () => {
  // The tarball holds dist/ as built; build it when the sources are newer (as `npm pack` would).
  await ensureBuilt();
  work = mkdtempSync(join(tmpdir(), "client-pack-"));
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], {
    cwd: pkg,
    env: cleanEnv(),
  });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  const tarball = join(work, packed?.filename as string);
  app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], {
    cwd: app,
    env: cleanEnv(),
  });
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the packed SDK installed from its tarball", () => {
  it("is public, has a README and no runtime dependency", () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies ?? {}).toEqual({});
    const installed = join(app, "node_modules/@media-gateway/client");
    for (const f of ["README.md", "package.json", "dist/index.js", "dist/index.d.ts", "dist/cli.js", "bin/media-api.js"])
      expect(existsSync(join(installed, f)), f).toBe(true);
    // Only what a user needs: no tests, no generator scripts.
    expect(existsSync(join(installed, "test"))).toBe(false);
    expect(existsSync(join(installed, "scripts"))).toBe(false);
  });

  it("an ES module imports the client and calls the API with it", async () => {
    writeFileSync(
      join(app, "check.mjs"),
      `import { MediaClient, MediaApiError, verifyWebhook, outputArtifacts, OPERATIONS } from "@media-gateway/client";
const seen = [];
const fetch = async (url, init = {}) => {
  seen.push(init.method + " " + new URL(url).pathname + " " + new Headers(init.headers).get("authorization"));
  return new Response(JSON.stringify({ object: "balance", available_credits: "12" }), { headers: { "content-type": "application/json" } });
};
const client = new MediaClient({ baseUrl: "https://api.example", apiKey: "sk_test", fetch });
const balance = await client.balance.get();
console.log(JSON.stringify({
  balance: balance.available_credits,
  seen,
  kinds: [typeof MediaApiError, typeof verifyWebhook, typeof outputArtifacts],
  operations: Object.keys(OPERATIONS).length > 10,
}));
`,
    );
    const { stdout } = await run(process.execPath, ["check.mjs"], { cwd: app });
    expect(JSON.parse(stdout)).toEqual({
      balance: "12",
      seen: ["GET /v1/balance Bearer sk_test"],
      kinds: ["function", "function", "function"],
      operations: true,
    });
  });

  it("its types resolve for a TypeScript project", async () => {
    writeFileSync(
      join(app, "check.ts"),
      `import { MediaClient, type TaskEnvelope } from "@media-gateway/client";
const client = new MediaClient({ apiKey: "k" });
export const started: Promise<TaskEnvelope> = client.images.generate({ prompt: "a fox" });
`,
    );
    const tsc = join(pkg, "node_modules/.bin/tsc");
    const args = ["--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext"];
    await expect(run(tsc, [...args, "check.ts"], { cwd: app })).resolves.toBeDefined();
  });

  it("the media-api command runs from the install", async () => {
    const { stdout } = await run(join(app, "node_modules/.bin/media-api"), ["--help"], { cwd: app });
    expect(stdout).toContain("media-api — the media generation API from the command line");
    expect(stdout).toContain("media-api chat");
    const version = await run(join(app, "node_modules/.bin/media-api"), ["--version"], { cwd: app });
    expect(version.stdout.trim()).toBe(manifest.version);
  });
});
