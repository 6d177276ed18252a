/**
 * Task creation and task reads against a bare route of the same Worker, in one run.
 *   npm run bench            (BENCH_REQUESTS=600 BENCH_ROUNDS=3 are the defaults)
 * Starts `wrangler dev` with state on /dev/shm and local tracing off, finds the inner workerd
 * port (bypassing wrangler's proxy when it can), and measures interleaved rounds at 1 and 16
 * connections. Prints requests/s, p50 and p99 per route and the ratios to the bare route.
 * The sandbox is slowed (SANDBOX_LATENCY_SCALE=1000) so that created tasks wait instead of
 * rendering images during the measurement.
 */
import { execSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 8799);
const ADMIN = `bench-admin-${Date.now()}-token`;

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function load(total: number, concurrency: number, make: (i: number) => [string, RequestInit]): Promise<Sample> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const [url, init] = make(i);
        const t0 = performance.now();
        const res = await fetch(url, init);
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status >= 400) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
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

/** wrangler dev proxies to an inner workerd; measure there when it can be found. */
async function innerBase(outer: number): Promise<{ base: string; where: string }> {
  try {
    const ports = [...execSync("ss -ltnp", { encoding: "utf8" }).matchAll(/127\.0\.0\.1:(\d+)\s.*workerd/g)].map((m) =>
      Number(m[1]),
    );
    for (const port of ports.filter((p) => p !== outer)) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(500) });
        if (r.ok && ((await r.json()) as { status?: string }).status === "ok")
          return { base: `http://127.0.0.1:${port}`, where: `inner workerd port ${port}` };
      } catch {}
    }
  } catch {}
  return { base: `http://127.0.0.1:${outer}`, where: `wrangler dev port ${outer} (through its proxy)` };
}

async function main() {
  const state = mkdtempSync(join(existsShm() ? "/dev/shm" : "/tmp", "bench-state-"));
  const child = spawn(
    join(root, "node_modules/.bin/wrangler"),
    [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(PORT),
      "--persist-to",
      state,
      "--log-level",
      "warn",
      "--var",
      `ADMIN_TOKEN:${ADMIN}`,
      "--var",
      "SANDBOX_LATENCY_SCALE:1000",
    ],
    {
      cwd: root,
      env: { ...process.env, X_LOCAL_OBSERVABILITY: "false", WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  try {
    execSync(`npx tsx scripts/build-catalog.ts --out ${state}/entries.json`, { cwd: root, stdio: "ignore" });
    execSync(`npx wrangler kv bulk put ${state}/entries.json --binding CATALOG --local --persist-to ${state}`, {
      cwd: root,
      stdio: "ignore",
    });
    const outer = `http://127.0.0.1:${PORT}`;
    await waitUp(outer);
    const { base, where } = await innerBase(PORT);
    const admin = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const tenant = await admin("/admin/v1/tenants", { name: "bench", credits: "100000000" });
    const key = (await admin(`/admin/v1/tenants/${tenant.tenant_id}/api-keys`, {})).api_key as string;
    const auth = { Authorization: `Bearer ${key}` };
    const body = JSON.stringify({ prompt: "bench", canvas: { type: "preset", tier: "1K", aspect: "1:1" } });
    const seed = (await (
      await fetch(`${base}/v1/images/generations`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": "seed" },
        body,
      })
    ).json()) as { task_id: string };
    let n = 0;
    const routes: Record<string, (i: number) => [string, RequestInit]> = {
      "bare GET /healthz": () => [`${base}/healthz`, {}],
      "GET /v1/tasks/{id}": () => [`${base}/v1/tasks/${seed.task_id}`, { headers: auth }],
      "POST /v1/images/generations": () => [
        `${base}/v1/images/generations`,
        {
          method: "POST",
          headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": `bench-${Date.now()}-${n++}` },
          body,
        },
      ],
    };
    console.log(`measuring on ${where}; state on ${state}; ${REQUESTS} requests × ${ROUNDS} interleaved rounds per cell`);
    for (const concurrency of [1, 16]) {
      await load(200, concurrency, routes["bare GET /healthz"]!); // warm-up
      const results: Record<string, Sample[]> = {};
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, make] of Object.entries(routes)) {
          const sample = await load(REQUESTS, concurrency, make);
          results[name] = [...(results[name] ?? []), sample];
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
      const summary = Object.fromEntries(
        Object.entries(results).map(([name, s]) => [
          name,
          {
            rps: median(s.map((x) => x.rps)),
            p50: median(s.map((x) => x.p50)),
            p99: median(s.map((x) => x.p99)),
            errors: s.reduce((a, x) => a + x.errors, 0),
          },
        ]),
      );
      const bare = summary["bare GET /healthz"]!;
      console.log(`\nconcurrency ${concurrency}`);
      console.log("route                          req/s    p50 ms   p99 ms   rps vs bare   p50 vs bare   errors");
      for (const [name, s] of Object.entries(summary)) {
        console.log(
          `${name.padEnd(30)} ${s.rps.toFixed(0).padStart(6)} ${s.p50.toFixed(2).padStart(8)} ${s.p99.toFixed(2).padStart(8)} ${(s.rps / bare.rps).toFixed(2).padStart(12)}× ${(s.p50 / bare.p50).toFixed(2).padStart(12)}× ${String(s.errors).padStart(8)}`,
        );
      }
    }
  } finally {
    child.kill("SIGTERM");
    rmSync(state, { recursive: true, force: true });
  }
}

function existsShm(): boolean {
  try {
    execSync("test -d /dev/shm");
    return true;
  } catch {
    return false;
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
