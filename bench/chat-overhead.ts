/**
 * The chat proxy against its peers, in one run:
 *   npm run bench:chat [-- --json figures.json]     (BENCH_REQUESTS=1500 BENCH_ROUNDS=5 are the defaults: about 3 minutes)
 * Four subjects answer the same OpenAI-style chat request from the tests' fake upstream
 * (test/chat/fake-upstream.ts, in this process, answering at once):
 *   direct     the fake itself
 *   reference  the reference Worker (bench/reference) forwarding it: the least a proxy on this runtime costs
 *   service    this service (authentication, rate limit, catalog, billing, request log), on its inner workerd port
 *   service-log-off  the same with the request log off (REQUEST_LOG_RECORDING = "off"): what the log costs a call
 *   portkey    Portkey's open-source gateway (Node), installed under bench/peers/portkey on first use
 * Cells: JSON and stream × 1 and 16 connections, measured in interleaved rounds (each round runs
 * every cell for every subject, the subjects' order turning from round to round) so that the
 * machine's drift touches all alike. Per cell and subject: p50/p99 latency and what each adds over
 * direct, requests/s, time to the first streamed event, and CPU per request of the subject's own
 * processes (the kernel's per-thread counters; the service's and the reference's workerd, Portkey's
 * node; n/a for direct, whose process is this one). BENCH_JSON=path or --json path writes the figures.
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { startLocalServer, startReferenceServer, type WranglerDev } from "../scripts/lib/local-server.ts";
import { FAKE_UPSTREAM_KEY, startFakeUpstream } from "../test/chat/fake-upstream.ts";
import { type Block, block, chat, type Subject } from "./lib/chat-load.ts";
import { type Cell, cellName, type Figures, figures, printCell, printTargets, targets } from "./lib/chat-report.ts";
import { processesNamed } from "./lib/cpu.ts";
import { type Portkey, startPortkey } from "./lib/portkey.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PORT = Number(process.env.BENCH_PORT ?? 8797);
const jsonFlag = process.argv.indexOf("--json");
const JSON_OUT = jsonFlag >= 0 ? process.argv[jsonFlag + 1] : process.env.BENCH_JSON;
const CELLS: Cell[] = [
  { kind: "json", concurrency: 1 },
  { kind: "stream", concurrency: 1 },
  { kind: "json", concurrency: 16 },
  { kind: "stream", concurrency: 16 },
];

/** The workerd processes of one `wrangler dev` (its proxy's too: off the path on the inner port, it costs nothing). */
function workerdOf(dev: WranglerDev): number[] {
  const pids = processesNamed(dev.pid, "workerd");
  if (pids.length === 0) throw new Error(`no workerd process under wrangler dev ${dev.pid}`);
  return pids;
}

/** Each subject answers whole and streamed with the text the fake sends directly, usage included. */
async function verify(subjects: Subject[]): Promise<void> {
  for (const stream of [false, true]) {
    const expected = await chat(subjects[0]!, stream);
    for (const subject of subjects) {
      const got = await chat(subject, stream);
      if (!got.text || got.text !== expected.text || !got.usage) {
        throw new Error(
          `${subject.name} answered ${stream ? "a stream" : "JSON"} with ${JSON.stringify(got)}, not ${JSON.stringify(expected.text)}`,
        );
      }
    }
  }
  console.log(`verified: every subject answers whole and streamed with the upstream's text and usage`);
}

async function main() {
  const fake = await startFakeUpstream();
  const upstream = `${fake.url}/v1`;
  const stops: (() => void)[] = [];
  try {
    const server = await startLocalServer({
      port: PORT,
      permissions: ["chat"],
      vars: { PROVIDER_DEEPSEEK_BASE_URL: upstream, PROVIDER_DEEPSEEK_API_KEY: FAKE_UPSTREAM_KEY },
    });
    stops.push(server.stop);
    const logOff = await startLocalServer({
      port: PORT + 2,
      permissions: ["chat"],
      vars: { PROVIDER_DEEPSEEK_BASE_URL: upstream, PROVIDER_DEEPSEEK_API_KEY: FAKE_UPSTREAM_KEY, REQUEST_LOG_RECORDING: "off" },
    });
    stops.push(logOff.stop);
    const reference = await startReferenceServer({ port: PORT + 1, upstream });
    stops.push(reference.stop);
    const portkey: Portkey = await startPortkey();
    stops.push(portkey.stop);

    const path = "/v1/chat/completions";
    const subjects: Subject[] = [
      { name: "direct", url: `${fake.url}${path}`, headers: { Authorization: `Bearer ${FAKE_UPSTREAM_KEY}` }, pids: null },
      {
        name: "reference",
        url: `${reference.base}${path}`,
        headers: { Authorization: `Bearer ${FAKE_UPSTREAM_KEY}` },
        pids: workerdOf(reference),
      },
      {
        name: "service",
        url: `${server.base}${path}`,
        headers: { Authorization: `Bearer ${server.apiKey}` },
        pids: workerdOf(server),
      },
      {
        name: "service-log-off",
        url: `${logOff.base}${path}`,
        headers: { Authorization: `Bearer ${logOff.apiKey}` },
        pids: workerdOf(logOff),
      },
      {
        name: "portkey",
        url: `${portkey.base}${path}`,
        headers: portkey.headers(upstream, FAKE_UPSTREAM_KEY),
        pids: [portkey.pid],
      },
    ];
    await verify(subjects);
    for (const subject of subjects) {
      for (const stream of [false, true]) {
        await block(subject, stream, 100, 16); // warm-up
        await block(subject, stream, 20, 1);
      }
    }
    fake.records.clear();

    const size = Math.ceil(REQUESTS / ROUNDS);
    const started = { at: new Date().toISOString(), load: loadavg()[0]! };
    console.log(
      `\nservice on ${server.where} (workerd ${subjects[2]!.pids!.join(", ")}); reference on ${reference.where} (workerd ${subjects[1]!.pids!.join(", ")}); Portkey ${portkey.version} on ${portkey.base} (node ${portkey.pid})`,
    );
    console.log(
      `fake upstream at ${fake.url}, answering at once, in this process; ${size * ROUNDS} requests per cell and subject in ${ROUNDS} interleaved rounds; ${cpus().length} CPUs, load ${started.load.toFixed(2)}`,
    );
    const blocks: Record<string, Record<string, Block[]>> = Object.fromEntries(
      CELLS.map((c) => [cellName(c), Object.fromEntries(subjects.map((s) => [s.name, [] as Block[]]))]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const order = subjects.map((_, i) => subjects[(i + round) % subjects.length]!);
      for (const cell of CELLS) {
        for (const subject of order) {
          blocks[cellName(cell)]![subject.name]!.push(await block(subject, cell.kind === "stream", size, cell.concurrency));
          fake.records.clear(); // the fake keeps every request; keep its memory flat
        }
      }
      process.stdout.write(`round ${round + 1}/${ROUNDS} done\n`);
    }

    const all: Record<string, Record<string, Figures>> = {};
    for (const cell of CELLS) {
      const figs = figures(blocks[cellName(cell)]!, "direct");
      all[cellName(cell)] = figs;
      printCell(cell, figs);
    }
    console.log(
      "\nCPU/req: ms of CPU of the subject's own processes per request (direct: n/a, the fake runs in the bench's process)." +
        "\nPortkey's stream handler sleeps 25 ms before its first chunk: compare its streams on CPU and throughput only.",
    );
    const list = targets(all);
    printTargets(list);
    if (JSON_OUT) {
      writeFileSync(
        JSON_OUT,
        `${JSON.stringify(
          {
            started: started.at,
            finished: new Date().toISOString(),
            machine: { cpus: cpus().length, load: { start: started.load, end: loadavg()[0] } },
            settings: {
              requests: size * ROUNDS,
              rounds: ROUNDS,
              service: server.where,
              reference: reference.where,
              portkey: portkey.version,
            },
            cells: all,
            targets: list,
          },
          (_, v) => (typeof v === "number" ? Math.round(v * 1000) / 1000 : v), // µs are the figures' precision
          2,
        )}\n`,
      );
      console.log(`\nfigures written to ${JSON_OUT}`);
    }
  } finally {
    for (const stop of stops.reverse()) stop();
    await fake.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
