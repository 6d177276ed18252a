/**
 * A sandbox encode cannot delay an API request: the sandbox makes its outputs in a Worker of its
 * own (src/sandbox-worker, bound as SANDBOX), so while a long video encode runs there, reads of
 * another task keep answering. Against real `wrangler dev`s: the sandbox Worker in a workerd of its
 * own, as it runs apart from the API in production (scripts/lib/local-server.ts). The checks count
 * answers, not milliseconds: where the encode held the API's isolate, the first read would wait for
 * the whole encode and no other would be answered before it ends.
 */
import { expect, inject, it } from "vitest";

// The e2e project's shared server (shared-server.ts), where the sandbox finishes at once: the
// video's time is its encode alone.
const server = inject("e2eServer");
const auth = { Authorization: `Bearer ${server.apiKey}`, "Content-Type": "application/json" };

async function create(path: string, body: unknown): Promise<string> {
  const r = await fetch(`${server.base}${path}`, {
    method: "POST",
    headers: { ...auth, "Idempotency-Key": crypto.randomUUID() },
    body: JSON.stringify(body),
  });
  const json = (await r.json()) as { task_id?: string };
  expect(r.status, JSON.stringify(json)).toBe(202);
  return json.task_id as string;
}

async function status(id: string): Promise<string> {
  const r = await fetch(`${server.base}/v1/tasks/${id}`, { headers: auth });
  return ((await r.json()) as { status: string }).status;
}

async function settled(id: string): Promise<string> {
  for (;;) {
    const s = await status(id);
    if (["succeeded", "failed", "canceled"].includes(s)) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
}

it("reads of a task answer while another task's video is encoded", async () => {
  const image = await create("/v1/images/generations", {
    prompt: "a still",
    canvas: { type: "preset", tier: "1K", aspect: "1:1" },
  });
  expect(await settled(image)).toBe("succeeded");

  const started = Date.now();
  const video = await create("/v1/videos/text-to-video", {
    model: "kling-4.0",
    prompt: "a long, large clip to encode",
    duration: 30,
    resolution: "1080p",
  });
  // A read of the finished image, then of the video, until the video is done.
  const reads: number[] = [];
  let videoStatus = "";
  for (;;) {
    const t0 = performance.now();
    expect(await status(image)).toBe("succeeded");
    reads.push(performance.now() - t0);
    videoStatus = await status(video);
    if (["succeeded", "failed", "canceled"].includes(videoStatus)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const encodeMs = Date.now() - started;
  console.log(`encode ${encodeMs} ms; ${reads.length} reads, slowest ${Math.round(Math.max(...reads))} ms`);
  expect(videoStatus).toBe("succeeded");
  // Reads went on answering while the video was made...
  expect(reads.length).toBeGreaterThanOrEqual(5);
  // ...and none waited for most of it.
  expect(Math.max(...reads)).toBeLessThan(encodeMs / 2);
}, 180_000);
