/**
 * A batch input file at the 100 MiB cap against a real `wrangler dev`: 10,000 lines of ~10 KB
 * each, uploaded chunked (no Content-Length, so the cap is counted as the bytes arrive) and then
 * named by a batch, which reads and validates every line. The Worker's workerd processes must stay
 * far below what holding the file would take: a deployed isolate has 128 MB. Their peak resident
 * memory (VmHWM, and VmRSS sampled) is compared with their idle memory. One byte over the cap is
 * refused with the 413 envelope, without the rest being read.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descendants, freePort, type LocalServer, startLocalServer } from "../../scripts/lib/local-server.ts";

const MiB = 1024 * 1024;
const CAP = 100 * MiB;
const LINES = 10_000;
/** What the Worker may add to its idle memory while it takes the file: less than the file itself. */
const ALLOWED_GROWTH = 100 * MiB;

let server: LocalServer;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  server = await startLocalServer({ port });
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => server?.stop());

/** The workerd processes of the API Worker (under its `wrangler dev`; the sandbox Worker's are apart). */
function workerdPids(): number[] {
  pids ??= [...descendants(server.pid)].filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd";
    } catch {
      return false;
    }
  });
  return pids;
}
let pids: number[] | undefined;

/** Starts each process's peak (VmHWM) again from its present memory (proc(5), clear_refs). */
function resetPeaks(): void {
  for (const pid of workerdPids()) writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** A field of /proc/<pid>/status in bytes, summed over the Worker's workerd processes. */
function memory(field: "VmRSS" | "VmHWM"): number {
  let sum = 0;
  for (const pid of workerdPids()) {
    try {
      const m = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
      if (m) sum += Number(m[1]) * 1024;
    } catch {}
  }
  return sum;
}

function perPid(): string {
  return workerdPids()
    .map((pid) => {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const f = (name: string) => Math.round(Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))?.[1]) / 1024);
      return `${pid} rss=${f("VmRSS")}M hwm=${f("VmHWM")}M anon=${f("RssAnon")}M file=${f("RssFile")}M shmem=${f("RssShmem")}M`;
    })
    .join(" ");
}

/** Line `i` of the file: a video_prompt_enhance item whose prompt pads it to `bytes` (with multi-byte characters in it). */
function line(i: number, bytes: number): string {
  const head = JSON.stringify({ custom_id: `row-${i}`, body: { prompt: "" } });
  const unit = "a slow pan over the hills at dawn, café lights ";
  let prompt = "";
  const room = bytes - Buffer.byteLength(head) - 1;
  while (Buffer.byteLength(prompt) + Buffer.byteLength(unit) <= room) prompt += unit;
  prompt += "x".repeat(room - Buffer.byteLength(prompt));
  return `${JSON.stringify({ custom_id: `row-${i}`, body: { prompt } })}\n`;
}

/** LINES lines of `total` bytes in all, made as they are sent (fetch streams them chunked). */
function fileStream(total: number): ReadableStream<Uint8Array> {
  const per = Math.floor(total / LINES);
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= LINES) return controller.close();
      // The last line takes what the division left over, so the file is exactly `total` bytes.
      const bytes = i === LINES - 1 ? total - per * (LINES - 1) : per;
      controller.enqueue(encoder.encode(line(i, bytes)));
      i++;
    },
  });
}

async function upload(body: ReadableStream<Uint8Array>) {
  const res = await fetch(`${base}/v1/uploads`, {
    method: "POST",
    headers: { Authorization: `Bearer ${server.apiKey}`, "Content-Type": "application/jsonl" },
    body,
    duplex: "half",
  } as RequestInit);
  return { status: res.status, json: (await res.json()) as any };
}

/** Uploads a file just under the cap and names it in a batch (whose items are then canceled). */
async function uploadAndAdmit(size: number): Promise<void> {
  const up = await upload(fileStream(size));
  expect(up.status, JSON.stringify(up.json)).toBe(201);
  expect(up.json).toMatchObject({ kind: "jsonl", bytes: size, lines: LINES });
  const batch = await fetch(`${base}/v1/batches`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${server.apiKey}`,
      "Content-Type": "application/json",
      "Idempotency-Key": `memory-${Date.now()}-${Math.random()}`,
    },
    body: JSON.stringify({ operation: "video_prompt_enhance", input_file_id: up.json.artifact_id, concurrency: 1 }),
  });
  const created = (await batch.json()) as any;
  expect(batch.status, JSON.stringify(created)).toBe(202);
  expect(created.counts.total).toBe(LINES);
  // Only one item runs at a time; the rest are canceled, so the server has no 10,000 tasks to run.
  const cancel = await fetch(`${base}/v1/batches/${created.batch_id}/cancel`, {
    method: "POST",
    headers: { Authorization: `Bearer ${server.apiKey}` },
  });
  expect(cancel.status).toBe(200);
}

const mib = (n: number) => `${(n / MiB).toFixed(0)} MiB`;

describe("a batch input file at the cap, through wrangler dev", () => {
  it("is uploaded, validated and admitted without the Worker holding it; one byte more is refused with 413", async () => {
    const size = CAP - 4096;
    const idle = memory("VmRSS");
    expect(idle).toBeGreaterThan(0);
    // A first file sizes the local runtime once for work of this kind (V8's heap, the allocator's
    // arenas, the simulated R2 and SQLite it keeps in the same process), and that memory is kept
    // by the process whether or not anything holds it: measured from idle, a Worker that streams
    // and one that holds the file would both look large. The second file is what a Worker that
    // held files would pay again (and did: 1.5 GB more for the first file before they were
    // streamed), and what a streaming one does not.
    await uploadAndAdmit(size);
    const warmed = memory("VmRSS");
    resetPeaks();
    let sampled = warmed;
    const sampler = setInterval(() => {
      sampled = Math.max(sampled, memory("VmRSS"));
    }, 50);
    try {
      await uploadAndAdmit(size);
      const over = await upload(fileStream(CAP + 1));
      expect(over.status, JSON.stringify(over.json)).toBe(413);
      expect(over.json.error).toMatchObject({ code: "media_too_large", details: { max_bytes: CAP } });
    } finally {
      clearInterval(sampler);
    }
    const peak = Math.max(sampled, memory("VmHWM"));
    const grew = peak - warmed;
    expect(
      grew,
      `workerd: ${mib(idle)} idle, ${mib(warmed)} after the first file, a peak of ${mib(peak)} during the second (${perPid()})`,
    ).toBeLessThan(ALLOWED_GROWTH);
  }, 900_000);
});
