/**
 * Proxy overhead of POST /v1/chat/completions, in one run:
 *   npm run bench:chat        (BENCH_REQUESTS=300, BENCH_FIRST_BYTE_MS=0, BENCH_INTERVAL_MS=0 are the defaults)
 * Starts the fake OpenAI-compatible upstream of the tests and `wrangler dev` configured to use it
 * (state on /dev/shm, local tracing off, measured on the inner workerd port when it can be found,
 * as bench/run.ts does). Each iteration sends, one after the other, the same chat request to the
 * fake directly and through the service, whole and streamed, at 1 and then 16 connections; it
 * prints p50 and p99 of the total latency and of the time to the first streamed event, with the
 * service's difference and ratio. The reference Worker (bench/reference: the request forwarded and
 * the answer streamed back, nothing else) is measured alike: the least a proxy on this runtime adds.
 */
import { FAKE_UPSTREAM_KEY, startFakeUpstream } from "../test/chat/fake-upstream.ts";
import { percentile, startLocalServer, startReferenceServer } from "./lib/local-server.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const PORT = Number(process.env.BENCH_PORT ?? 8797);
const FIRST_BYTE_MS = Number(process.env.BENCH_FIRST_BYTE_MS ?? 0);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 0);
const BLOCK = 50;

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

function summary(name: string, direct: number[], service: number[], reference: number[]) {
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const [d, s, r] = [sorted(direct), sorted(service), sorted(reference)];
  const row = (label: string, p: number) => {
    const a = percentile(d, p);
    const b = percentile(s, p);
    const c = percentile(r, p);
    return `${`${name} ${label}`.padEnd(28)} ${a.toFixed(2).padStart(10)} ${b.toFixed(2).padStart(10)} ${(b - a).toFixed(2).padStart(10)} ${(b / a).toFixed(2).padStart(9)}× ${c.toFixed(2).padStart(10)} ${(c - a).toFixed(2).padStart(10)}`;
  };
  console.log(row("p50", 50));
  console.log(row("p99", 99));
}

async function main() {
  const fake = await startFakeUpstream();
  const server = await startLocalServer({
    port: PORT,
    permissions: ["chat"],
    vars: { PROVIDER_DEEPSEEK_BASE_URL: `${fake.url}/v1`, PROVIDER_DEEPSEEK_API_KEY: FAKE_UPSTREAM_KEY },
  });
  const reference = await startReferenceServer({ port: PORT + 1, upstream: `${fake.url}/v1` }).catch((e) => {
    server.stop();
    throw e;
  });
  try {
    const { base, where } = server;
    const key = server.apiKey;

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
    /** One cell: the same request to `base` (the fake, the service or the reference) with its key. */
    const via = (base: string, key: string, stream: boolean) => () =>
      timed(`${base}/v1/chat/completions`, { Authorization: `Bearer ${key}` }, request("deepseek-flash", stream));
    const cells = {
      "direct json": via(fake.url, FAKE_UPSTREAM_KEY, false),
      "service json": via(base, key, false),
      "direct stream": via(fake.url, FAKE_UPSTREAM_KEY, true),
      "service stream": via(base, key, true),
      "reference json": via(reference.base, FAKE_UPSTREAM_KEY, false),
      "reference stream": via(reference.base, FAKE_UPSTREAM_KEY, true),
    };
    // A bare route of the same Worker: what any request costs on this local server.
    const bare = async (): Promise<Timing> => {
      const t0 = performance.now();
      await (await fetch(`${base}/healthz`)).arrayBuffer();
      return { total: performance.now() - t0 };
    };
    for (let i = 0; i < 30; i++) for (const run of [...Object.values(cells), bare]) await run(); // warm-up
    fake.records.clear();
    /** `n` requests of one cell over `concurrency` connections. */
    const block = async (run: () => Promise<Timing>, n: number, concurrency: number): Promise<Timing[]> => {
      const out: Timing[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next++ < n) out.push(await run());
        }),
      );
      return out;
    };
    for (const concurrency of [1, 16]) {
      const results: Record<string, Timing[]> = Object.fromEntries(Object.keys(cells).map((k) => [k, []]));
      const bareTimes: number[] = [];
      // Interleaved blocks, so that the machine's drift touches every cell alike.
      for (let done = 0; done < REQUESTS; done += BLOCK) {
        for (const [name, run] of Object.entries(cells)) results[name]!.push(...(await block(run, BLOCK, concurrency)));
        bareTimes.push(...(await block(bare, BLOCK, concurrency)).map((t) => t.total));
        fake.records.clear(); // the fake keeps every request; keep its memory flat
      }
      const totals = (name: string) => results[name]!.map((t) => t.total);
      const firsts = (name: string) => results[name]!.map((t) => t.ttfb as number);
      console.log(
        `\nmeasuring on ${where}; fake upstream at ${fake.url} (first byte ${FIRST_BYTE_MS} ms, ${INTERVAL_MS} ms between chunks); ${REQUESTS} requests per cell in interleaved blocks of ${BLOCK}, concurrency ${concurrency}; milliseconds`,
      );
      console.log(
        `${"".padEnd(28)} ${"direct".padStart(10)} ${"service".padStart(10)} ${"diff".padStart(10)} ${"ratio".padStart(10)} ${"reference".padStart(10)} ${"ref diff".padStart(10)}`,
      );
      summary("whole: latency", totals("direct json"), totals("service json"), totals("reference json"));
      summary("stream: first event", firsts("direct stream"), firsts("service stream"), firsts("reference stream"));
      summary("stream: latency", totals("direct stream"), totals("service stream"), totals("reference stream"));
      const b = bareTimes.sort((x, y) => x - y);
      console.log(
        `reference: bare GET /healthz on the same server, p50 ${percentile(b, 50).toFixed(2)} ms, p99 ${percentile(b, 99).toFixed(2)} ms`,
      );
    }
  } finally {
    server.stop();
    reference.stop();
    await fake.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
