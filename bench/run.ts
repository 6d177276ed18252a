/**
 * Task creation and task reads against a bare route of the same Worker, in one run.
 *   npm run bench            (BENCH_REQUESTS=600 BENCH_ROUNDS=3 are the defaults)
 * Starts the service and the reference Worker (bench/reference: the same requests with no
 * gateway logic, the runtime's floor) in `wrangler dev` with state on /dev/shm and local tracing
 * off, on their inner workerd ports, and measures interleaved rounds at 1 and 16 connections.
 * Prints requests/s, p50 and p99 per route and the ratios to each Worker's own bare route.
 * The sandbox is slowed (SANDBOX_LATENCY_SCALE=1000) so that created tasks wait instead of
 * rendering images during the measurement.
 */
import { percentile, startLocalServer, startReferenceServer } from "./lib/local-server.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 8799);
const REFERENCE_PORT = PORT + 1;
/** The targets the ratios are held to (rps of the route over rps of the bare route). */
const TARGETS: Record<string, number> = { read: 0.9, create: 0.5 };

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
  const reference = await startReferenceServer({ port: REFERENCE_PORT }).catch((e) => {
    server.stop();
    throw e;
  });
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
    // The reference reads back a body of the size of the seed task's envelope.
    const seedEnvelope = await (await fetch(`${base}/v1/tasks/${seed.task_id}`, { headers: auth })).text();
    await fetch(`${reference.base}/seed`, { method: "POST", body: seedEnvelope });
    let n = 0;
    /** Each row: its Worker (service or reference), its kind (bare, read, create), how to make a request. */
    const routes: { name: string; worker: "service" | "reference"; kind: string; make: (i: number) => [string, RequestInit] }[] =
      [
        { name: "bare GET /healthz", worker: "service", kind: "bare", make: () => [`${base}/healthz`, {}] },
        {
          name: "GET /v1/tasks/{id}",
          worker: "service",
          kind: "read",
          make: () => [`${base}/v1/tasks/${seed.task_id}`, { headers: auth }],
        },
        {
          name: "POST /v1/images/generations",
          worker: "service",
          kind: "create",
          make: () => [
            `${base}/v1/images/generations`,
            {
              method: "POST",
              headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": `bench-${Date.now()}-${n++}` },
              body,
            },
          ],
        },
        { name: "reference: bare", worker: "reference", kind: "bare", make: () => [`${reference.base}/healthz`, {}] },
        { name: "reference: object read", worker: "reference", kind: "read", make: () => [`${reference.base}/read`, {}] },
        {
          name: "reference: object create",
          worker: "reference",
          kind: "create",
          make: () => [`${reference.base}/create`, { method: "POST", body }],
        },
      ];
    console.log(
      `measuring on ${where} (reference on ${reference.where}); state on ${state}; ${REQUESTS} requests × ${ROUNDS} interleaved rounds per cell`,
    );
    for (const concurrency of [1, 16]) {
      for (const route of routes.filter((r) => r.kind === "bare")) await load(200, concurrency, route.make); // warm-up
      const results: Record<string, Sample[]> = {};
      for (let round = 0; round < ROUNDS; round++) {
        for (const { name, make } of routes) {
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
      console.log(`\nconcurrency ${concurrency}`);
      console.log("route                          req/s    p50 ms   p99 ms   rps vs bare   p50 vs bare   errors   target");
      for (const route of routes) {
        const s = summary[route.name]!;
        const bare = summary[routes.find((r) => r.worker === route.worker && r.kind === "bare")!.name]!;
        const target = route.worker === "service" && TARGETS[route.kind] ? `≥ ${TARGETS[route.kind]!.toFixed(2)}×` : "";
        console.log(
          `${route.name.padEnd(30)} ${s.rps.toFixed(0).padStart(6)} ${s.p50.toFixed(2).padStart(8)} ${s.p99.toFixed(2).padStart(8)} ${(s.rps / bare.rps).toFixed(2).padStart(12)}× ${(s.p50 / bare.p50).toFixed(2).padStart(12)}× ${String(s.errors).padStart(8)}   ${target}`.trimEnd(),
        );
      }
    }
  } finally {
    server.stop();
    reference.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
