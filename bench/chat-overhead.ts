/**
 * Proxy overhead of POST /v1/chat/completions, in one run:
 *   npm run bench:chat        (BENCH_REQUESTS=300, BENCH_FIRST_BYTE_MS=0, BENCH_INTERVAL_MS=0 are the defaults)
 * Starts the fake OpenAI-compatible upstream of the tests and `wrangler dev` configured to use it
 * (state on /dev/shm, local tracing off, measured on the inner workerd port when it can be found,
 * as bench/run.ts does). Each iteration sends, one after the other, the same chat request to the
 * fake directly and through the service, whole and streamed; it prints p50 and p99 of the total
 * latency and of the time to the first streamed event, with the service's difference and ratio.
 */
import { execSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { FAKE_UPSTREAM_KEY, startFakeUpstream } from "../test/chat/fake-upstream.ts";

const root = new URL("..", import.meta.url).pathname;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const PORT = Number(process.env.BENCH_PORT ?? 8797);
const FIRST_BYTE_MS = Number(process.env.BENCH_FIRST_BYTE_MS ?? 0);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 0);
const ADMIN = `bench-admin-${Date.now()}-token`;

interface Timing {
  total: number;
  /** Time to the first `data:` event (streams only). */
  ttfb?: number;
}

/** One request; for streams, the time to the first event and to the end. */
async function timed(url: string, headers: Record<string, string>, body: unknown): Promise<Timing> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok || !res.body) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  let ttfb: number | undefined;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (ttfb === undefined && text.includes("data:")) ttfb = performance.now() - t0;
  }
  if ((body as { stream?: boolean }).stream && !text.includes("data: [DONE]")) throw new Error(`${url}: stream without [DONE]`);
  return { total: performance.now() - t0, ttfb };
}

function percentile(sorted: number[], p: number): number {
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

/** wrangler dev proxies to an inner workerd; measure there when it can be found. */
async function innerBase(outer: number, parent: number): Promise<{ base: string; where: string }> {
  try {
    const ours = descendants(parent);
    const ports = [...execSync("ss -ltnp", { encoding: "utf8" }).matchAll(/127\.0\.0\.1:(\d+)\s.*workerd",pid=(\d+)/g)]
      .filter((m) => ours.has(Number(m[2])))
      .map((m) => Number(m[1]));
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

function summary(name: string, direct: number[], service: number[]) {
  const d = [...direct].sort((a, b) => a - b);
  const s = [...service].sort((a, b) => a - b);
  const row = (label: string, p: number) => {
    const a = percentile(d, p);
    const b = percentile(s, p);
    return `${`${name} ${label}`.padEnd(28)} ${a.toFixed(2).padStart(10)} ${b.toFixed(2).padStart(10)} ${(b - a).toFixed(2).padStart(10)} ${(b / a).toFixed(2).padStart(9)}×`;
  };
  console.log(row("p50", 50));
  console.log(row("p99", 99));
}

async function main() {
  const fake = await startFakeUpstream();
  const state = mkdtempSync(join(existsShm() ? "/dev/shm" : "/tmp", "bench-chat-state-"));
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
      `PROVIDER_OPENAI_COMPATIBLE_BASE_URL:${fake.url}/v1`,
      "--var",
      `PROVIDER_OPENAI_COMPATIBLE_API_KEY:${FAKE_UPSTREAM_KEY}`,
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
    await waitUp(`http://127.0.0.1:${PORT}`);
    const { base, where } = await innerBase(PORT, child.pid as number);
    const admin = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const tenant = await admin("/admin/v1/tenants", { name: "bench", credits: "100000000" });
    const key = (await admin(`/admin/v1/tenants/${tenant.tenant_id}/api-keys`, { permissions: ["chat"] })).api_key as string;

    const behaviour = {
      first_byte_ms: FIRST_BYTE_MS,
      interval_ms: INTERVAL_MS,
      text: "The quick brown fox jumps over the lazy dog, twice.",
    };
    const request = (model: string, stream: boolean) => ({
      model,
      messages: [{ role: "user", content: "Say something short." }],
      max_tokens: 64,
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      fake: { tag: "bench", ...behaviour },
    });
    const cells = {
      "direct json": () =>
        timed(
          `${fake.url}/v1/chat/completions`,
          { Authorization: `Bearer ${FAKE_UPSTREAM_KEY}` },
          request("deepseek-chat", false),
        ),
      "service json": () =>
        timed(`${base}/v1/chat/completions`, { Authorization: `Bearer ${key}` }, request("deepseek-v3.2", false)),
      "direct stream": () =>
        timed(
          `${fake.url}/v1/chat/completions`,
          { Authorization: `Bearer ${FAKE_UPSTREAM_KEY}` },
          request("deepseek-chat", true),
        ),
      "service stream": () =>
        timed(`${base}/v1/chat/completions`, { Authorization: `Bearer ${key}` }, request("deepseek-v3.2", true)),
    };
    // A bare route of the same Worker: what any request costs on this local server.
    const bare = async (): Promise<Timing> => {
      const t0 = performance.now();
      await (await fetch(`${base}/healthz`)).arrayBuffer();
      return { total: performance.now() - t0 };
    };
    for (let i = 0; i < 30; i++) for (const run of [...Object.values(cells), bare]) await run(); // warm-up
    fake.records.clear();
    const results: Record<string, Timing[]> = Object.fromEntries(Object.keys(cells).map((k) => [k, []]));
    const bareTimes: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      for (const [name, run] of Object.entries(cells)) results[name]!.push(await run());
      bareTimes.push((await bare()).total);
      if (i % 100 === 99) fake.records.clear(); // the fake keeps every request; keep its memory flat
    }
    const totals = (name: string) => results[name]!.map((t) => t.total);
    const firsts = (name: string) => results[name]!.map((t) => t.ttfb as number);
    console.log(
      `measuring on ${where}; fake upstream at ${fake.url} (first byte ${FIRST_BYTE_MS} ms, ${INTERVAL_MS} ms between chunks); ${REQUESTS} interleaved iterations, concurrency 1; milliseconds`,
    );
    console.log(
      `${"".padEnd(28)} ${"direct".padStart(10)} ${"service".padStart(10)} ${"diff".padStart(10)} ${"ratio".padStart(10)}`,
    );
    summary("whole: latency", totals("direct json"), totals("service json"));
    summary("stream: first event", firsts("direct stream"), firsts("service stream"));
    summary("stream: latency", totals("direct stream"), totals("service stream"));
    const b = bareTimes.sort((x, y) => x - y);
    console.log(
      `reference: bare GET /healthz on the same server, p50 ${percentile(b, 50).toFixed(2)} ms, p99 ${percentile(b, 99).toFixed(2)} ms`,
    );
  } finally {
    child.kill("SIGTERM");
    await fake.close();
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
