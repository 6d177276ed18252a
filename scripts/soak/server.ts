/**
 * The service under soak: its own `wrangler dev` on 127.0.0.1, state in a directory of its own
 * that survives restarts, the catalog loaded into that state's KV once, and the sandbox Worker in a
 * `wrangler dev` of its own beside it. `kill()` is a real crash of the API: SIGKILL to wrangler and
 * every process under it (workerd, esbuild), nothing flushed; `start()` again brings the same state
 * back on the same port.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { freePort, startSandboxWorker } from "../lib/local-server.ts";
import type { History } from "./history.ts";

export const root = new URL("../..", import.meta.url).pathname;
const bin = join(root, "node_modules/.bin");

/** `pid` and every process under it, from the process table. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const line of execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" }).split("\n")) {
    const [p, pp] = line.trim().split(/\s+/).map(Number);
    if (!p || pp === undefined) continue;
    children.set(pp, [...(children.get(pp) ?? []), p]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ServerOptions {
  /** The run's directory: wrangler's logs go there. */
  runDir: string;
  /** Wrangler's --persist-to: kept across restarts. */
  stateDir: string;
  port: number;
  vars: Record<string, string>;
  history: History;
}

export class SoakServer {
  readonly base: string;
  private child: ChildProcess | null = null;
  /** The sandbox Worker, in a workerd of its own: it outlives the API's crashes, as another Worker would. */
  private sandbox: ChildProcess | null = null;
  private incarnation = 0;
  private inspectorPort = 0;

  constructor(private readonly o: ServerOptions) {
    this.base = `http://127.0.0.1:${o.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Builds the catalog and loads it into the state's KV (once: the state keeps it). */
  loadCatalog(): void {
    mkdirSync(this.o.stateDir, { recursive: true });
    const entries = join(this.o.runDir, "catalog-entries.json");
    const env = this.env();
    execFileSync(join(bin, "tsx"), ["scripts/build-catalog.ts", "--out", entries], { cwd: root, stdio: "ignore", env });
    execFileSync(
      join(bin, "wrangler"),
      ["kv", "bulk", "put", entries, "--binding", "CATALOG", "--local", "--persist-to", this.o.stateDir],
      { cwd: root, stdio: "ignore", env },
    );
  }

  private env(): NodeJS.ProcessEnv {
    // node_modules/.bin first: it holds the Node that wrangler requires (the `node` devDependency).
    return {
      ...process.env,
      PATH: `${bin}:${process.env.PATH ?? ""}`,
      X_LOCAL_OBSERVABILITY: "false",
      WRANGLER_SEND_METRICS: "false",
      // The run's own registry, so that its API binds its own sandbox Worker.
      WRANGLER_REGISTRY_PATH: join(this.o.stateDir, "registry"),
    };
  }

  /** Starts wrangler dev and waits until /healthz answers (at most `timeoutMs`). */
  async start(timeoutMs = 90_000): Promise<void> {
    if (this.child) throw new Error("the server is already running");
    this.incarnation++;
    this.inspectorPort ||= await freePort();
    if (!this.sandbox) {
      const sandboxLog = openSync(join(this.o.runDir, "wrangler-sandbox.log"), "a");
      this.sandbox = await startSandboxWorker({
        env: this.env(),
        persistTo: join(this.o.stateDir, "sandbox"),
        stdio: ["ignore", sandboxLog, sandboxLog],
      });
      closeSync(sandboxLog);
    }
    const log = openSync(join(this.o.runDir, `wrangler-${this.incarnation}.log`), "a");
    const child = spawn(
      join(bin, "wrangler"),
      [
        "dev",
        // The service with the crash drills on (scripts/soak/worker.ts).
        "scripts/soak/worker.ts",
        "--ip",
        "127.0.0.1",
        "--port",
        String(this.o.port),
        "--inspector-port",
        String(this.inspectorPort),
        "--persist-to",
        this.o.stateDir,
        "--log-level",
        "warn",
        "--show-interactive-dev-session=false",
        ...Object.entries(this.o.vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
      ],
      { cwd: root, env: this.env(), stdio: ["ignore", log, log] },
    );
    closeSync(log);
    this.child = child;
    child.once("exit", () => {
      if (this.child === child) this.child = null;
    });
    this.o.history.write({
      type: "server",
      at: Date.now(),
      event: "start",
      incarnation: this.incarnation,
      pids: [child.pid ?? 0],
    });
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if (this.child !== child) throw new Error(`wrangler dev exited; see ${this.o.runDir}/wrangler-${this.incarnation}.log`);
      try {
        const r = await fetch(`${this.base}/healthz`, { signal: AbortSignal.timeout(2000) });
        await r.arrayBuffer();
        if (r.ok) {
          this.o.history.write({ type: "server", at: Date.now(), event: "up", incarnation: this.incarnation });
          return;
        }
      } catch {
        // not up yet
      }
      await sleep(200);
    }
    throw new Error(`wrangler dev did not answer within ${timeoutMs / 1000} s`);
  }

  /** A crash: SIGKILL to wrangler and everything under it at once. Returns the pids killed. */
  async kill(): Promise<number[]> {
    const child = this.child;
    if (!child?.pid) return [];
    const pids = descendants(child.pid);
    const at = Date.now();
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    this.o.history.write({ type: "server", at, event: "kill", incarnation: this.incarnation, pids });
    await this.gone(pids);
    this.child = null;
    return pids;
  }

  /** Orderly stop at the end of the run (SIGTERM, then SIGKILL for whatever is left), the sandbox Worker's too. */
  async stop(): Promise<void> {
    const child = this.child;
    const sandbox = this.sandbox;
    this.sandbox = null;
    const pids = [child, sandbox].flatMap((c) => (c?.pid ? descendants(c.pid) : []));
    if (pids.length === 0) return;
    child?.kill("SIGTERM");
    sandbox?.kill("SIGTERM");
    const until = Date.now() + 5000;
    while (Date.now() < until && pids.some(alive)) await sleep(100);
    for (const pid of pids.filter(alive)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    await this.gone(pids);
    this.child = null;
    if (child) this.o.history.write({ type: "server", at: Date.now(), event: "stop", incarnation: this.incarnation });
  }

  private async gone(pids: number[]): Promise<void> {
    const until = Date.now() + 10_000;
    while (Date.now() < until && pids.some(alive)) await sleep(50);
  }

  /** The operator API with the run's admin token. */
  async admin(method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const r = await fetch(`${this.base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.o.vars.ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await r.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = { raw: text.slice(0, 300) };
    }
    return { status: r.status, json };
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie still answers signal 0; the process table says whether it is one.
    const stat = execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).trim();
    return stat.length > 0 && !stat.startsWith("Z");
  } catch {
    return false;
  }
}
