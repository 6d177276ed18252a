/**
 * Task creation and task reads against a bare route of the same Worker, in one run.
 *   npm run bench            (BENCH_REQUESTS=600 BENCH_ROUNDS=3 are the defaults)
 * Starts `wrangler dev` with state on /dev/shm and local tracing off, finds the inner workerd
 * port (bypassing wrangler's proxy when it can), and measures interleaved rounds at 1 and 16
 * connections. Prints requests/s, p50 and p99 per route and the ratios to the bare route.
 * The sandbox is slowed (SANDBOX_LATENCY_SCALE=1000) so that created tasks wait instead of
 * rendering images during the measurement.
 */
import { percentile, startLocalServer } from "./lib/local-server.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 8799);

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
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

async function main() {
  const server = await startLocalServer({ port: PORT, vars: { SANDBOX_LATENCY_SCALE: "1000" } });
  try {
    const { base, where, state } = server;
    const auth = { Authorization: `Bearer ${server.apiKey}` };
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
    server.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
