/**
 * Portkey's open-source gateway (`@portkey-ai/gateway`, Node), the peer the chat benchmark measures
 * beside the service: installed on demand under bench/peers/portkey/ from its own lockfile (its HTTP
 * layer pinned there: newer @hono/node-server releases fail its streams), started headless on a free
 * port of 127.0.0.1. Portkey takes the provider and the upstream per request, in headers.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../scripts/lib/local-server.ts";

const peer = new URL("../peers/portkey", import.meta.url).pathname;
const pkg = join(peer, "node_modules/@portkey-ai/gateway");

export interface Portkey {
  base: string;
  /** Its Node process: all of Portkey's CPU is spent there. */
  pid: number;
  version: string;
  /** What routes a request to `upstream` (an OpenAI-compatible base URL) with its key. */
  headers(upstream: string, key: string): Record<string, string>;
  stop(): void;
}

/** `npm ci` of the peer's own lockfile, when its node_modules is missing. */
export function installPortkey(): void {
  if (existsSync(join(pkg, "package.json"))) return;
  console.log("installing Portkey's gateway under bench/peers/portkey (npm ci) …");
  execFileSync("npm", ["ci", "--prefix", peer, "--no-audit", "--no-fund"], { stdio: "inherit" });
}

export async function startPortkey(): Promise<Portkey> {
  installPortkey();
  const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string; bin: string };
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ["--require", join(peer, "loopback.cjs"), join(pkg, manifest.bin), "--headless", `--port=${port}`],
    // Its stdout is a start-up banner; its stderr (errors) is shown.
    { cwd: peer, stdio: ["ignore", "ignore", "inherit"] },
  );
  const base = `http://127.0.0.1:${port}`;
  const stop = () => child.kill("SIGTERM");
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error("Portkey's gateway exited before it answered");
    try {
      await fetch(base, { signal: AbortSignal.timeout(500) });
      break;
    } catch {}
    if (i === 150) {
      stop();
      throw new Error("Portkey's gateway did not start");
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    pid: child.pid as number,
    version: manifest.version,
    headers: (upstream, key) => ({
      "x-portkey-provider": "openai",
      "x-portkey-custom-host": upstream,
      Authorization: `Bearer ${key}`,
    }),
    stop,
  };
}
