/**
 * Where the Worker's CPU goes under one kind of load: a sampling CPU profile taken through
 * `wrangler dev`'s inspector while a load runs, summed by function (self time) and printed.
 *   npm run bench:profile -- create|read|chat|chat-stream|bare     (BENCH_REQUESTS=2000, BENCH_CONCURRENCY=8)
 * A tool to find what to make cheaper; the benchmarks (bench/run.ts, bench/chat-overhead.ts)
 * judge the result.
 */
import { writeFileSync } from "node:fs";
import { startLocalServer } from "../scripts/lib/local-server.ts";
import { FAKE_UPSTREAM_KEY, startFakeUpstream } from "../test/chat/fake-upstream.ts";

const KIND = process.argv[2] ?? "create";
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PORT = Number(process.env.BENCH_PORT ?? 8797);
const INSPECTOR = Number(process.env.BENCH_INSPECTOR_PORT ?? 9239);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

async function inspector(): Promise<{ send: (method: string, params?: object) => Promise<any>; close: () => void }> {
  const targets = (await (await fetch(`http://127.0.0.1:${INSPECTOR}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error("no inspector target");
  // The WebSocket client built into Node 22 (the project's Node, which npm scripts run).
  // wrangler's inspector proxy wants an Origin; Node's (undici's) WebSocket takes headers in its init.
  const ws = new WebSocket(url, { headers: { Origin: `http://127.0.0.1:${INSPECTOR}` } } as unknown as string[]);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", reject, { once: true });
  });
  let id = 0;
  const waiting = new Map<number, { resolve: (v: any) => void; reject: (e: unknown) => void }>();
  ws.addEventListener("message", (event) => {
    const msg = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown };
    const w = msg.id === undefined ? undefined : waiting.get(msg.id);
    if (w) msg.error ? w.reject(msg.error) : w.resolve(msg.result);
  });
  return {
    send(method, params = {}) {
      const n = ++id;
      ws.send(JSON.stringify({ id: n, method, params }));
      return new Promise((resolve, reject) => waiting.set(n, { resolve, reject }));
    },
    close: () => ws.close(),
  };
}

function summarize(profile: Profile, top = 40): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const idn = profile.samples[i] as number;
    self.set(idn, (self.get(idn) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  for (const [idn, us] of self) {
    const f = byId.get(idn)?.callFrame;
    const file = f?.url.split("/").slice(-2).join("/") ?? "";
    const key = `${f?.functionName || "(anonymous)"} ${file}:${(f?.lineNumber ?? 0) + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  return [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
}

/**
 * The hottest lines of one function (BENCH_LINES=<function name>), as line numbers of the bundle
 * wrangler built (the profile names it only `index.js`; `wrangler deploy --dry-run --outdir` writes one to read).
 */
function hotLines(profile: Profile, name: string, top = 25): string[] {
  const ticks = new Map<number, number>();
  for (const n of profile.nodes) {
    if (n.callFrame.functionName !== name) continue;
    for (const p of n.positionTicks ?? []) ticks.set(p.line, (ticks.get(p.line) ?? 0) + p.ticks);
  }
  return [...ticks]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([line, n]) => `${String(n).padStart(6)} samples  line ${line}`);
}

async function main() {
  // Chat goes to the tests' fake OpenAI-compatible upstream, as bench/chat-overhead.ts does.
  const fake = await startFakeUpstream();
  const server = await startLocalServer({
    port: PORT,
    vars: {
      SANDBOX_LATENCY_SCALE: "1000",
      PROVIDER_DEEPSEEK_BASE_URL: `${fake.url}/v1`,
      PROVIDER_DEEPSEEK_API_KEY: FAKE_UPSTREAM_KEY,
    },
    args: ["--inspector-port", String(INSPECTOR)],
  });
  try {
    const auth = { Authorization: `Bearer ${server.apiKey}` };
    const body = JSON.stringify({ prompt: "profile", canvas: { type: "preset", tier: "1K", aspect: "1:1" } });
    const post = (key: string) =>
      fetch(`${server.base}/v1/images/generations`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": key },
        body,
      });
    const seed = (await (await post("seed")).json()) as { task_id: string };
    let n = 0;
    const chat = (stream: boolean) => {
      fake.records.clear();
      return fetch(`${server.base}/v1/chat/completions`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({
          model: "deepseek-flash",
          messages: [{ role: "user", content: "Say something short." }],
          max_tokens: 64,
          ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
          fake: { tag: "profile", text: "The quick brown fox jumps over the lazy dog, twice." },
        }),
      });
    };
    const make: Record<string, () => Promise<Response>> = {
      create: () => post(`p-${Date.now()}-${n++}`),
      read: () => fetch(`${server.base}/v1/tasks/${seed.task_id}`, { headers: auth }),
      bare: () => fetch(`${server.base}/healthz`),
      chat: () => chat(false),
      "chat-stream": () => chat(true),
    };
    const one = make[KIND];
    if (!one) throw new Error(`unknown load ${KIND}: create, read, chat, chat-stream or bare`);
    const run = async (total: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < total) await (await one()).arrayBuffer();
        }),
      );
    };
    await run(200);
    const ins = await inspector();
    await ins.send("Profiler.enable");
    await ins.send("Profiler.setSamplingInterval", { interval: 200 });
    await ins.send("Profiler.start");
    const t0 = performance.now();
    await run(REQUESTS);
    const seconds = (performance.now() - t0) / 1000;
    const { profile } = (await ins.send("Profiler.stop")) as { profile: Profile };
    ins.close();
    // The whole profile, for a closer look (e.g. in a browser's devtools, as a .cpuprofile file).
    if (process.env.BENCH_PROFILE_OUT) writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(profile));
    console.log(`${KIND}: ${REQUESTS} requests at concurrency ${CONCURRENCY} in ${seconds.toFixed(1)} s on ${server.where}`);
    console.log("self time by function (the Worker's isolate):");
    for (const line of summarize(profile)) console.log(line);
    for (const name of (process.env.BENCH_LINES ?? "").split(",").filter(Boolean)) {
      console.log(`hot lines of ${name} (samples, line of the bundle):`);
      for (const line of hotLines(profile, name, 8)) console.log(line);
    }
  } finally {
    server.stop();
    await fake.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
