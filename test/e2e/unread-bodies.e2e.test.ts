/**
 * Bodies refused before their end, against a real `wrangler dev` (its own port, as `npm start`
 * serves it, where its proxy stands between the client and the Worker as an edge would): a Node
 * client sending 120 MB chunked at full speed, paced, or with a Content-Length, to the upload route
 * and to a JSON route, reads the 413 (or 401, or 422) envelope it was given rather than a reset
 * connection or the proxy's 500 (src/http/unread-body.ts).
 */
import { request } from "node:http";
import { describe, expect, inject, it } from "vitest";

const MiB = 1024 * 1024;
const SIZE = 120 * MiB;
const CHUNK = 64 * 1024;

// The e2e project's shared server (shared-server.ts), through wrangler dev's own port.
const server = inject("e2eServer");
const base = server.proxy;

/** The leading bytes of an MP4 (an `ftyp` box), so that an upload is read as a video up to its cap. */
function mp4Head(): Uint8Array {
  const head = new Uint8Array(CHUNK);
  head.set([0, 0, 0, 0x18, ...new TextEncoder().encode("ftypisom"), 0, 0, 2, 0, ...new TextEncoder().encode("isomiso2")]);
  return head;
}

interface Sent {
  path: string;
  headers: Record<string, string>;
  /** Declares the length instead of sending chunked. */
  withLength?: boolean;
  /** Milliseconds between chunks (0: as fast as the socket takes them). */
  paceMs?: number;
  first?: Uint8Array;
}

interface Answer {
  status?: number;
  json?: any;
  error?: string;
  sent: number;
}

/** Sends SIZE bytes with node:http, reading the answer whenever it comes. */
function send(opts: Sent): Promise<Answer> {
  return new Promise((resolve) => {
    const headers = { ...opts.headers, ...(opts.withLength ? { "Content-Length": String(SIZE) } : {}) };
    const req = request(`${base}${opts.path}`, { method: "POST", headers });
    const filler = new Uint8Array(CHUNK).fill(0x20);
    let sent = 0;
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => {
        text += d;
      });
      res.on("end", () => {
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode, json, sent });
      });
    });
    req.on("error", (e) => resolve({ error: String(e), sent }));
    const pump = () => {
      while (sent < SIZE) {
        const chunk = sent === 0 && opts.first ? opts.first : filler;
        sent += chunk.byteLength;
        const more = req.write(chunk);
        if (opts.paceMs) return void setTimeout(pump, opts.paceMs);
        if (!more) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

/** The same with fetch and a streamed body (always chunked), as a Node or browser client sends it. */
async function sendWithFetch(path: string, headers: Record<string, string>, first?: Uint8Array): Promise<Answer> {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= SIZE) return controller.close();
      const chunk = sent === 0 && first ? first : new Uint8Array(CHUNK).fill(0x20);
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  try {
    const res = await fetch(new URL(path, base), { method: "POST", headers, body, duplex: "half" } as RequestInit);
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json, sent };
  } catch (e) {
    return { error: `${e} (${(e as Error).cause})`, sent };
  }
}

function expectEnvelope(answer: Answer, status: number, code: string) {
  expect(answer.error, "the client read an answer").toBeUndefined();
  expect(answer.status, JSON.stringify(answer.json)).toBe(status);
  expect(answer.json?.error?.code).toBe(code);
  expect(answer.json.error.request_id).toMatch(/^req_/);
}

const auth = () => ({ Authorization: `Bearer ${server.apiKey}` });
const video = () => ({ ...auth(), "Content-Type": "video/mp4" });
const json = () => ({ ...auth(), "Content-Type": "application/json", "Idempotency-Key": `k-${Date.now()}-${Math.random()}` });

describe("a body over a cap, in any transfer shape and pace, gets its answer", { timeout: 120_000 }, () => {
  it("an upload sent chunked at full speed: 413 media_too_large", async () => {
    expectEnvelope(await send({ path: "/v1/uploads", headers: video(), first: mp4Head() }), 413, "media_too_large");
  });

  it("an upload sent chunked and slowly (about 12 MB/s, some ten seconds): 413 media_too_large", async () => {
    const answer = await send({ path: "/v1/uploads", headers: video(), first: mp4Head(), paceMs: 5 });
    expectEnvelope(answer, 413, "media_too_large");
  });

  it("an upload with its Content-Length: 413 media_too_large", async () => {
    const answer = await send({ path: "/v1/uploads", headers: video(), first: mp4Head(), withLength: true });
    expectEnvelope(answer, 413, "media_too_large");
  });

  it("an upload streamed by fetch: 413 media_too_large", async () => {
    expectEnvelope(await sendWithFetch("/v1/uploads", video(), mp4Head()), 413, "media_too_large");
  });

  it("a JSON body, chunked or with its length, by node:http or fetch: 413 media_too_large", async () => {
    const path = "/v1/images/generations";
    expectEnvelope(await send({ path, headers: json() }), 413, "media_too_large");
    expectEnvelope(await send({ path, headers: json(), withLength: true }), 413, "media_too_large");
    expectEnvelope(await sendWithFetch(path, json()), 413, "media_too_large");
  });

  it("a body refused before any of it is read (no key, a text file) still gets its answer", async () => {
    const noKey = await send({ path: "/v1/uploads", headers: { "Content-Type": "video/mp4" }, first: mp4Head() });
    expectEnvelope(noKey, 401, "unauthorized");
    // Declared over every kind's cap: refused on its length, before any byte is read.
    const declared = await send({ path: "/v1/uploads", headers: { ...auth(), "Content-Type": "text/plain" }, withLength: true });
    expectEnvelope(declared, 413, "media_too_large");
    // Chunked: refused on its first bytes, which are text.
    const text = await send({ path: "/v1/uploads", headers: { ...auth(), "Content-Type": "text/plain" } });
    expectEnvelope(text, 422, "unsupported_media_type");
  });
});
