/**
 * The service as the benchmarks measure it: its own `wrangler dev` with state on /dev/shm and
 * local tracing off, the catalog loaded, a tenant with an API key, and the inner workerd port
 * (wrangler's proxy caps throughput and would compress every ratio) when it can be found.
 */
import { type ChildProcess, execSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function waitUp(base: string) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("server did not start");
}

/** Process ids under `pid`, so that only this run's workerd is measured. */
function descendants(pid: number): Set<number> {
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

export interface LocalServer {
  base: string;
  where: string;
  state: string;
  apiKey: string;
  stop(): void;
}

export async function startLocalServer(opts: {
  port: number;
  vars?: Record<string, string>;
  permissions?: string[];
  /** More `wrangler dev` arguments (the profiler adds `--inspector-port`). */
  args?: string[];
}): Promise<LocalServer> {
  const admin = `bench-admin-${Date.now()}-token`;
  const state = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : "/tmp", "bench-state-"));
  // The per-key rate limit stays on (every request is counted), high enough not to refuse measured requests.
  const vars = { ADMIN_TOKEN: admin, RATE_LIMIT_PER_MINUTE: "10000000", ...(opts.vars ?? {}) };
  const child: ChildProcess = spawn(
    join(root, "node_modules/.bin/wrangler"),
    [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(opts.port),
      "--persist-to",
      state,
      "--log-level",
      "warn",
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
      ...(opts.args ?? []),
    ],
    {
      cwd: root,
      env: { ...process.env, X_LOCAL_OBSERVABILITY: "false", WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const stop = () => {
    child.kill("SIGTERM");
    rmSync(state, { recursive: true, force: true });
  };
  try {
    execSync(`npx tsx scripts/build-catalog.ts --out ${state}/entries.json`, { cwd: root, stdio: "ignore" });
    execSync(`npx wrangler kv bulk put ${state}/entries.json --binding CATALOG --local --persist-to ${state}`, {
      cwd: root,
      stdio: "ignore",
    });
    await waitUp(`http://127.0.0.1:${opts.port}`);
    const { base, where } = await innerBase(opts.port, child.pid as number);
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const tenant = await post("/admin/v1/tenants", { name: "bench", credits: "100000000" });
    const key = await post(
      `/admin/v1/tenants/${tenant.tenant_id}/api-keys`,
      opts.permissions ? { permissions: opts.permissions } : {},
    );
    return { base, where, state, apiKey: key.api_key as string, stop };
  } catch (e) {
    stop();
    throw e;
  }
}
