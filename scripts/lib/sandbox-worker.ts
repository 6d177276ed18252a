/**
 * The sandbox Worker (src/sandbox-worker) beside the API Worker: its wrangler configuration, its
 * name in each environment, and the sandbox bundled for the tests, where it is an
 * auxiliary Worker of the Worker under test (auxiliary Workers are given as built JavaScript).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;

/** The sandbox Worker's wrangler configuration. */
export const SANDBOX_CONFIG = join(root, "src/sandbox-worker/wrangler.toml");

/** The sandbox Worker's name in an environment, as the API's `[[services]]` binding there names it. */
export function sandboxWorkerName(environment?: string): string {
  return environment ? `media-gateway-sandbox-${environment}` : "media-gateway-sandbox";
}

let built: string | undefined;

/** The bundle is the same in every environment (they differ by name only): built once per process. */
function bundled(): string {
  if (built) return built;
  const outdir = join(root, "dist/test-sandbox-worker");
  rmSync(outdir, { recursive: true, force: true });
  execFileSync(join(root, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "-c", SANDBOX_CONFIG, "--outdir", outdir], {
    cwd: root,
    stdio: "pipe",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  built = outdir;
  return outdir;
}

/**
 * Bundles the sandbox Worker as wrangler deploys it (into dist/, git-ignored) and returns Miniflare's
 * options for it as an auxiliary Worker named as the API's binding in ENVIRONMENT expects.
 */
export function sandboxAuxiliaryWorker(environment?: string) {
  const outdir = bundled();
  return {
    name: sandboxWorkerName(environment),
    // The bundle and the wasm modules it imports, as wrangler wrote them.
    modulesRoot: outdir,
    modules: [
      { type: "ESModule" as const, path: join(outdir, "index.js") },
      ...readdirSync(outdir)
        .filter((f) => f.endsWith(".wasm"))
        .map((f) => ({ type: "CompiledWasm" as const, path: join(outdir, f) })),
    ],
    compatibilityDate: "2026-11-01",
    compatibilityFlags: ["nodejs_compat"],
  };
}
