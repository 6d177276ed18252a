/**
 * What the benchmarks measure: the service, and the reference Worker beside it, each in its own
 * `wrangler dev` with state on /dev/shm and local tracing off, on the inner workerd port
 * (wrangler's proxy caps throughput and would compress every ratio) when it can be found.
 */
import { type ChildProcess, execSync, type StdioOptions, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { liveEntry, pruneDeadEntries } from "./dev-registry.ts";
import { SANDBOX_CONFIG, sandboxWorkerName } from "./sandbox-worker.ts";

const root = new URL("../..", import.meta.url).pathname;

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** A port free on 127.0.0.1 right now (for a `wrangler dev` of a test or script to listen on). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Whether CHILD answers on BASE within a minute; false when it exits first. */
async function waitUp(base: string, child: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    try {
      if ((await fetch(`${base}/healthz`)).ok) return true;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("server did not start");
}

/**
 * Servers started at once can race for the ports wrangler picks for itself (its Workers' direct
 * sockets): one then exits with "Address already in use". It is started again, at most thrice.
 */
const START_ATTEMPTS = 3;

/** Whether PID is a running process (a zombie, killed but not yet reaped, is not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = execSync(`ps -o stat= -p ${pid}`, { encoding: "utf8" }).trim();
    return stat.length > 0 && !stat.startsWith("Z");
  } catch {
    return false;
  }
}

/** `pid` and the process ids under it, so that only this run's workerd is measured. */
export function descendants(pid: number): Set<number> {
  const out = new Set<number>([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const line of execSync("ps -e -o pid=,ppid=", { encoding: "utf8" }).split("\n")) {
      const [p, pp] = line.trim().split(/\s+/).map(Number) as [number, number];
      if (out.has(pp) && !out.has(p)) {
        out.add(p);
        grew = true;
      }
    }
  }
  return out;
}

async function innerBase(outer: number, parent: number): Promise<{ base: string; where: string }> {
  try {
    const ours = descendants(parent);
    const ports = [...execSync("ss -ltnp", { encoding: "utf8" }).matchAll(/127\.0\.0\.1:(\d+)\s.*workerd",pid=(\d+)/g)]
      .filter((m) => ours.has(Number(m[2])))
      .map((m) => Number(m[1]));
    for (const port of ports.filter((p) => p !== outer)) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(500) });
        if (r.ok && ((await r.json()) as { status?: string }).status === "ok") {
          return { base: `http://127.0.0.1:${port}`, where: `inner workerd port ${port}` };
        }
      } catch {}
    }
  } catch {}
  return { base: `http://127.0.0.1:${outer}`, where: `wrangler dev port ${outer} (through its proxy)` };
}

export interface WranglerDev {
  base: string;
  where: string;
  state: string;
  /** The `wrangler dev` process that answers on `base`; its workerd processes are under it (not the sandbox Worker's). */
  pid: number;
  stop(): void;
  /**
   * A crash, as `kill -9` of the whole `npm start`: SIGKILL to every process of this server (the
   * API's and the sandbox Worker's wrangler and the workerd under each), the state kept for a restart.
   */
  crash(): Promise<void>;
}

/**
 * The service's secrets that wrangler.toml does not hold (each region keeps them as secrets, `npm
 * start` in .dev.vars): one set per process, so a server restarted on the same state reads it.
 */
export const LOCAL_SECRETS = { STORAGE_ENCRYPTION_KEY: randomBytes(32).toString("base64") };

/**
 * Under a test runner a server's own warnings are kept, and shown only if it fails to start: a
 * passing run's log is its results (the tests check what the servers answer).
 */
const QUIET = Boolean(process.env.VITEST);

/** The stdio of a local server's process: its stderr piped (and kept) when quiet. */
function serverStdio(): StdioOptions {
  return ["ignore", "ignore", QUIET ? "pipe" : "inherit"];
}

/** Keeps the last 200 chunks of a piped stderr in `kept` (and so never lets the pipe fill). */
function keepStderr(child: ChildProcess, kept: string[]): ChildProcess {
  child.stderr?.on("data", (chunk: Buffer) => {
    kept.push(chunk.toString());
    if (kept.length > 200) kept.shift();
  });
  return child;
}

/**
 * `wrangler dev` of the service (the API Worker and its sandbox Worker) or of one other Worker config, with state on /dev/shm and local tracing off, answering
 * on its inner workerd port when it can be found; `prepare` runs once the state folder exists.
 */
export async function startWranglerDev(opts: {
  port: number;
  /** A wrangler config other than the service's (the reference Worker). */
  config?: string;
  vars?: Record<string, string>;
  args?: string[];
  prepare?: (state: string) => void;
  /** The state folder of a server that ran before (a restart); a new one when not given. */
  state?: string;
}): Promise<WranglerDev> {
  const state = opts.state ?? mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : "/tmp", "bench-state-"));
  // This server's own registry of local Workers, so that its API binds its own sandbox Worker.
  const env = {
    ...process.env,
    X_LOCAL_OBSERVABILITY: "false",
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_REGISTRY_PATH: join(state, "registry"),
  };
  const children: ChildProcess[] = [];
  const kept: string[] = [];
  const stop = () => {
    // wrangler's bundler runs as a process of its own: stopped with it, it does not report its
    // parent's end on stderr as a deadlock.
    const pids = children.flatMap((c) => (c.pid ? [...descendants(c.pid)] : []));
    for (const child of children) child.kill("SIGTERM");
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    rmSync(state, { recursive: true, force: true });
  };
  const crash = async () => {
    const pids = children.flatMap((c) => (c.pid ? [...descendants(c.pid)] : []));
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    for (let i = 0; i < 200 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
  };
  try {
    // The service is two Workers: the sandbox Worker runs in a workerd process of its own, as it
    // runs apart in production, and the API binds it through the registry.
    if (!opts.config) children.push(await startSandboxWorker({ env, persistTo: join(state, "sandbox"), kept }));
    const spawnApi = () =>
      spawn(
        join(root, "node_modules/.bin/wrangler"),
        [
          "dev",
          ...(opts.config ? ["--config", opts.config] : []),
          "--ip",
          "127.0.0.1",
          "--port",
          String(opts.port),
          "--persist-to",
          state,
          "--log-level",
          "warn",
          ...Object.entries({ ...(opts.config ? {} : LOCAL_SECRETS), ...opts.vars }).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
          ...(opts.args ?? []),
        ],
        { cwd: root, env, stdio: serverStdio() },
      );
    let child = keepStderr(spawnApi(), kept);
    children.push(child);
    opts.prepare?.(state);
    for (let attempt = 1; !(await waitUp(`http://127.0.0.1:${opts.port}`, child)); attempt++) {
      if (attempt === START_ATTEMPTS) throw new Error("wrangler dev exited before it answered");
      child = keepStderr(spawnApi(), kept);
      children.push(child);
    }
    const { base, where } = await innerBase(opts.port, child.pid as number);
    return { base, where, state, pid: child.pid as number, stop, crash };
  } catch (e) {
    stop();
    if (kept.length) process.stderr.write(kept.join(""));
    throw e;
  }
}

/**
 * The sandbox Worker's own `wrangler dev`, in a workerd of its own (one workerd runs all its Workers
 * on one thread, so an encode there would hold up the API), returned once it is in the registry of
 * `env.WRANGLER_REGISTRY_PATH`, where the API's binding finds it.
 */
export function startSandboxWorker(opts: CompanionOptions): Promise<ChildProcess> {
  return startCompanionWorker(SANDBOX_CONFIG, sandboxWorkerName(), opts);
}

/** The docs Worker's `wrangler dev` (the API reference viewer's files, bound by the API as DOCS). */
export function startDocsWorker(opts: CompanionOptions): Promise<ChildProcess> {
  return startCompanionWorker(join(root, "src/docs-worker/wrangler.toml"), "media-gateway-docs", opts);
}

interface CompanionOptions {
  env: NodeJS.ProcessEnv;
  persistTo: string;
  stdio?: StdioOptions;
  /** Where its stderr is kept when its stdio is the quiet default under a test runner. */
  kept?: string[];
}

/**
 * A Worker the API binds, in a `wrangler dev` of its own, once the local registry names it as `name`
 * on a workerd that answers. Entries left by a crashed server are removed first
 * (scripts/lib/dev-registry.ts): kept, they would stand for the new Worker and bind the API to a
 * dead one.
 */
async function startCompanionWorker(config: string, name: string, opts: CompanionOptions): Promise<ChildProcess> {
  const registry = opts.env.WRANGLER_REGISTRY_PATH;
  if (!registry) throw new Error(`${name} needs a registry of its own (WRANGLER_REGISTRY_PATH)`);
  await pruneDeadEntries(registry);
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    const child = spawn(
      join(root, "node_modules/.bin/wrangler"),
      [
        "dev",
        "-c",
        config,
        "--ip",
        "127.0.0.1",
        "--port",
        String(await freePort()),
        "--persist-to",
        opts.persistTo,
        "--inspector-port",
        String(await freePort()),
        "--log-level",
        "warn",
        "--show-interactive-dev-session=false",
      ],
      { cwd: root, env: opts.env, stdio: opts.stdio ?? serverStdio() },
    );
    if (!opts.stdio) keepStderr(child, opts.kept ?? []);
    for (let i = 0; i < 300 && child.exitCode === null && child.signalCode === null; i++) {
      if (await liveEntry(registry, name)) return child;
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill("SIGTERM");
  }
  throw new Error(`${name} did not start`);
}

/** Loads catalog-data/ into the local KV of a `wrangler dev` state folder (a `prepare` step). */
export function loadCatalogInto(state: string): void {
  execSync(`npx tsx scripts/build-catalog.ts --out ${state}/entries.json`, { cwd: root, stdio: "ignore" });
  execSync(`npx wrangler kv bulk put ${state}/entries.json --binding CATALOG --local --persist-to ${state}`, {
    cwd: root,
    stdio: "ignore",
  });
}

export interface LocalServer extends WranglerDev {
  apiKey: string;
  /** The operator token (ADMIN_TOKEN) this server was started with. */
  adminToken: string;
  /** The same server started again on its state, port and key (after `crash()`). */
  restart(): Promise<LocalServer>;
}

/** The service itself, its catalog loaded, with a tenant and an API key. */
export async function startLocalServer(opts: {
  port: number;
  vars?: Record<string, string>;
  permissions?: string[];
  /** More `wrangler dev` arguments (the profiler adds `--inspector-port`). */
  args?: string[];
}): Promise<LocalServer> {
  const admin = `bench-admin-${Date.now()}-token`;
  // The per-key rate limit stays on (every request is counted), high enough not to refuse measured requests.
  const vars = { ADMIN_TOKEN: admin, RATE_LIMIT_PER_MINUTE: "10000000", ...(opts.vars ?? {}) };
  const dev = await startWranglerDev({
    port: opts.port,
    vars,
    ...(opts.args ? { args: opts.args } : {}),
    prepare: loadCatalogInto,
  });
  try {
    const post = (path: string, body: unknown) =>
      fetch(`${dev.base}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const tenant = await post("/admin/v1/tenants", { name: "bench", credits: "100000000" });
    const key = await post(
      `/admin/v1/tenants/${tenant.tenant_id}/api-keys`,
      opts.permissions ? { permissions: opts.permissions } : {},
    );
    const apiKey = key.api_key as string;
    const again = async (state: string): Promise<LocalServer> => {
      const next = await startWranglerDev({ port: opts.port, vars, ...(opts.args ? { args: opts.args } : {}), state });
      return { ...next, apiKey, adminToken: admin, restart: () => again(state) };
    };
    return { ...dev, apiKey, adminToken: admin, restart: () => again(dev.state) };
  } catch (e) {
    dev.stop();
    throw e;
  }
}

/** The reference Worker (bench/reference): the least each measured request can cost here. */
export function startReferenceServer(opts: { port: number; upstream?: string }): Promise<WranglerDev> {
  return startWranglerDev({
    port: opts.port,
    config: join(root, "bench/reference/wrangler.toml"),
    ...(opts.upstream ? { vars: { UPSTREAM: opts.upstream } } : {}),
  });
}
