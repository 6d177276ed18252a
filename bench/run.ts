/**
 * Task creation and task reads against the runtime's floor, in one run.
 *   npm run bench [-- --json figures.json]     (BENCH_REQUESTS=600 BENCH_ROUNDS=3 are the defaults)
 * Starts the service and the reference Worker (bench/reference: the same requests with no
 * gateway logic, the runtime's floor) in `wrangler dev` with state on /dev/shm and local tracing
 * off, on their inner workerd ports, and measures interleaved rounds at 1 and 16 connections.
 * Prints requests/s, p50, p99 and CPU per request (the kernel's per-thread counters of each
 * Worker's workerd; the service's API only, not its sandbox Worker's process) per route, the ratios
 * to each Worker's own bare route, and the targets: the service's requests/s over the reference's
 * matching row in the same run. The sandbox is slowed (SANDBOX_LATENCY_SCALE=1000) so that created
 * tasks wait instead of rendering images during the measurement. BENCH_JSON=path or --json path
 * writes the figures.
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { percentile, startLocalServer, startReferenceServer } from "../scripts/lib/local-server.ts";
import { measureBatchRow, printBatchRow } from "./batch-row.ts";
import { cpuNs, processesNamed } from "./lib/cpu.ts";
import { featureTenants } from "./lib/feature-tenants.ts";
import { cpuMsPerRequest } from "./lib/schedstat.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 8799);
const REFERENCE_PORT = PORT + 1;
const jsonFlag = process.argv.indexOf("--json");
const JSON_OUT = jsonFlag >= 0 ? process.argv[jsonFlag + 1] : process.env.BENCH_JSON;
/** The targets: the service's requests/s over the reference's for the same kind of request, in the same run. */
const TARGETS: { kind: string; name: string; min: number }[] = [
  { kind: "read", name: "task read ÷ object read", min: 0.9 },
  { kind: "create", name: "task create ÷ object create", min: 0.75 },
  { kind: "bare", name: "/healthz ÷ bare", min: 0.9 },
];
/** A create of a tenant using one optional feature, over the bare tenant's create: at least this. */
const FEATURE_MIN = 0.9;
/** Work a Worker finishes after its last answer is its own: it is given this long before its CPU is read again. */
const SETTLE_MS = 30;

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Milliseconds of CPU of the Worker's workerd processes per request. */
  cpu: number;
}

async function load(
  total: number,
  concurrency: number,
  make: (i: number) => [string, RequestInit],
  pids: number[],
): Promise<Sample> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const before = cpuNs(pids);
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
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const cpu = cpuMsPerRequest(before, cpuNs(pids), total);
  latencies.sort((a, b) => a - b);
  return { rps: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, cpu };
}

let stopFeatures: (() => Promise<void>) | undefined;

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
    const featured = await featureTenants(base, server.adminToken);
    stopFeatures = featured.stop;
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
        ...featured.tenants.map(({ feature, apiKey }) => ({
          name: `  create, with ${feature}`,
          worker: "service" as const,
          kind: `feature: ${feature}`,
          make: (): [string, RequestInit] => [
            `${base}/v1/images/generations`,
            {
              method: "POST",
              headers: {
                Authorization: `Bearer ${apiKey}`,
                "Content-Type": "application/json",
                "Idempotency-Key": `bench-${Date.now()}-${n++}`,
              },
              body,
            },
          ],
        })),
        { name: "reference: bare", worker: "reference", kind: "bare", make: () => [`${reference.base}/healthz`, {}] },
        { name: "reference: object read", worker: "reference", kind: "read", make: () => [`${reference.base}/read`, {}] },
        {
          name: "reference: object create",
          worker: "reference",
          kind: "create",
          make: () => [`${reference.base}/create`, { method: "POST", body }],
        },
      ];
    const pids = { service: processesNamed(server.pid, "workerd"), reference: processesNamed(reference.pid, "workerd") };
    const started = { at: new Date().toISOString(), load: loadavg()[0]! };
    console.log(
      `measuring on ${where} (workerd ${pids.service.join(", ")}; reference on ${reference.where}, workerd ${pids.reference.join(", ")}); state on ${state}; ${REQUESTS} requests × ${ROUNDS} interleaved rounds per cell; ${cpus().length} CPUs, load ${started.load.toFixed(2)}`,
    );
    const out: { concurrency: number; rows: Record<string, Sample>; targets: object[] }[] = [];
    for (const concurrency of [1, 16]) {
      for (const route of routes.filter((r) => r.kind === "bare")) await load(200, concurrency, route.make, pids[route.worker]); // warm-up
      const results: Record<string, Sample[]> = {};
      for (let round = 0; round < ROUNDS; round++) {
        for (const { name, worker, make } of routes) {
          const sample = await load(REQUESTS, concurrency, make, pids[worker]);
          results[name] = [...(results[name] ?? []), sample];
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
      const summary: Record<string, Sample> = Object.fromEntries(
        Object.entries(results).map(([name, s]) => [
          name,
          {
            rps: median(s.map((x) => x.rps)),
            p50: median(s.map((x) => x.p50)),
            p99: median(s.map((x) => x.p99)),
            cpu: median(s.map((x) => x.cpu)),
            errors: s.reduce((a, x) => a + x.errors, 0),
          },
        ]),
      );
      const row = (worker: string, kind: string) => summary[routes.find((r) => r.worker === worker && r.kind === kind)!.name]!;
      console.log(`\nconcurrency ${concurrency}`);
      console.log(
        "route                                req/s    p50 ms   p99 ms   CPU ms/req   rps vs bare   p50 vs bare   errors",
      );
      for (const route of routes) {
        const s = summary[route.name]!;
        const bare = row(route.worker, "bare");
        console.log(
          `${route.name.padEnd(36)} ${s.rps.toFixed(0).padStart(6)} ${s.p50.toFixed(2).padStart(8)} ${s.p99.toFixed(2).padStart(8)} ${s.cpu.toFixed(3).padStart(12)} ${(s.rps / bare.rps).toFixed(2).padStart(12)}× ${(s.p50 / bare.p50).toFixed(2).padStart(12)}× ${String(s.errors).padStart(8)}`,
        );
      }
      console.log(`service ÷ reference, requests/s in the same run, concurrency ${concurrency}`);
      const held = TARGETS.map(({ kind, name, min }) => {
        const ratio = row("service", kind).rps / row("reference", kind).rps;
        const cpu = row("service", kind).cpu / row("reference", kind).cpu;
        console.log(
          `  ${ratio >= min ? "pass" : "FAIL"}  ${name.padEnd(28)} ${ratio.toFixed(2).padStart(6)}×  (target ≥ ${min.toFixed(2)}×; CPU/req ${cpu.toFixed(2)}× the reference's)`,
        );
        return { name, concurrency, ratio, min, pass: ratio >= min, cpuRatio: cpu };
      });
      console.log(`a tenant using one optional feature: its creates ÷ the bare tenant's, requests/s, concurrency ${concurrency}`);
      for (const { feature } of featured.tenants) {
        const ratio = row("service", `feature: ${feature}`).rps / row("service", "create").rps;
        const name = `create with ${feature}`;
        console.log(
          `  ${ratio >= FEATURE_MIN ? "pass" : "FAIL"}  ${name.padEnd(28)} ${ratio.toFixed(2).padStart(6)}×  (target ≥ ${FEATURE_MIN.toFixed(2)}×)`,
        );
        held.push({ name, concurrency, ratio, min: FEATURE_MIN, pass: ratio >= FEATURE_MIN, cpuRatio: NaN });
      }
      out.push({ concurrency, rows: summary, targets: held });
    }
    const batchRow = await measureBatchRow(base, auth);
    printBatchRow(batchRow);
    if (JSON_OUT) {
      const round3 = (_: string, v: unknown) => (typeof v === "number" ? Math.round(v * 1000) / 1000 : v);
      const figures = {
        started: started.at,
        finished: new Date().toISOString(),
        machine: { cpus: cpus().length, load: { start: started.load, end: loadavg()[0] } },
        settings: { requests: REQUESTS, rounds: ROUNDS, service: where, reference: reference.where, state },
        runs: out,
        batch: batchRow,
      };
      writeFileSync(JSON_OUT, `${JSON.stringify(figures, round3, 2)}\n`);
      console.log(`\nfigures written to ${JSON_OUT}`);
    }
  } finally {
    server.stop();
    reference.stop();
    await stopFeatures?.();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
