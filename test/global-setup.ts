/**
 * Starts what the tests need outside the Worker: a callback receiver on 127.0.0.1 that speaks
 * plain HTTP, records every delivery and answers as its path says.
 *   POST /hook/ok/<name>            200
 *   POST /hook/fail/<name>?times=N  500 for the first N deliveries, then 200
 *   POST /hook/gone/<name>          410
 *   POST /hook/redirect/<name>      302 to /hook/ok/<name>
 *   POST /hook/busy/<name>          503 with Retry-After: 120
 *   POST /hook/hang/<name>?ms=N     200, but only after N ms (default 20 s)
 *   any  /silent/…                  never answered: the caller's timeout ends it
 *   GET  /deliveries/<name>         what <name> received, as JSON
 * and a media server for the fetcher of media inputs (always `application/octet-stream`, so the
 * tests show that the bytes, not the declared type, decide):
 *   GET  /media/<fixture>           a fixture of test/media/fixtures.ts, e.g. /media/png
 *   GET  /media/image/<w>x<h>       a PNG of that size (test/helpers/media-fixtures.ts)
 *   GET  /media/jpeg-header/<w>x<h> a JPEG declaring that size, with a few bytes of scan (up to 99999 a side)
 *   GET  /media/video/<seconds>     a 1280×720 MP4 of that length
 *   GET  /media/redirect?to=<url>   302 to <url> (relative or absolute)
 *   GET  /media/redirect-private    302 to http://10.0.0.1/x
 *   GET  /media/loop                302 to itself
 *   GET  /media/status/<code>       that status, empty body
 *   GET  /media/big                 8 MB streamed without Content-Length
 *   GET  /media/big-declared        the same with Content-Length
 *   GET  /media/slow                headers and a few bytes, then nothing for 10 s
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { TestProject } from "vitest/node";
import { mp4, png } from "./helpers/media-fixtures";
import { buildFixtures, jpeg } from "./media/fixtures";

interface Delivery {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

declare module "vitest" {
  export interface ProvidedContext {
    receiverUrl: string;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

const BIG_BYTES = 8 * 1024 * 1024;
const CHUNK = new Uint8Array(64 * 1024).fill(0x41);

/** Writes `total` bytes in chunks, honouring back-pressure, and stops when the client goes away. */
async function stream(res: ServerResponse, total: number): Promise<void> {
  for (let sent = 0; sent < total && !res.destroyed; sent += CHUNK.length) {
    if (!res.write(CHUNK.subarray(0, Math.min(CHUNK.length, total - sent)))) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }
  res.end();
}

/** Media of a requested size, made once per size. */
const sized = new Map<string, Promise<Uint8Array>>();
function sizedMedia(name: string, arg: string): Promise<Uint8Array> | undefined {
  const dims = /^(\d{1,4})x(\d{1,4})$/.exec(arg);
  const seconds = /^\d{1,3}(\.\d+)?$/.test(arg) ? Number(arg) : undefined;
  const declared = /^(\d{1,5})x(\d{1,5})$/.exec(arg);
  if (name === "jpeg-header" && declared) return Promise.resolve(jpeg(Number(declared[1]), Number(declared[2])));
  if (name === "image" && dims) {
    if (!sized.has(`i${arg}`)) sized.set(`i${arg}`, png(Number(dims[1]), Number(dims[2])));
    return sized.get(`i${arg}`);
  }
  if (name === "video" && seconds) {
    if (!sized.has(`v${arg}`)) sized.set(`v${arg}`, Promise.resolve(mp4(seconds, 1280, 720)));
    return sized.get(`v${arg}`);
  }
  return undefined;
}

function serveMedia(parts: string[], url: URL, res: ServerResponse, fixtures: Record<string, Uint8Array>): void {
  const [, name = "", arg] = parts;
  const fixture = fixtures[name];
  const octets = { "Content-Type": "application/octet-stream" };
  const made = arg === undefined ? undefined : sizedMedia(name, arg);
  if (made) {
    void made.then((data) => res.writeHead(200, { ...octets, "Content-Length": String(data.length) }).end(data));
  } else if (name === "redirect") res.writeHead(302, { Location: url.searchParams.get("to") ?? "/" }).end();
  else if (name === "redirect-private") res.writeHead(302, { Location: "http://10.0.0.1/x" }).end();
  else if (name === "loop") res.writeHead(302, { Location: "/media/loop" }).end();
  else if (name === "status") res.writeHead(Number(arg) || 500).end();
  else if (name === "big") {
    res.writeHead(200, octets);
    void stream(res, BIG_BYTES);
  } else if (name === "big-declared") {
    res.writeHead(200, { ...octets, "Content-Length": String(BIG_BYTES) });
    void stream(res, BIG_BYTES);
  } else if (name === "slow") {
    res.writeHead(200, octets);
    res.write("slow");
    const timer = setTimeout(() => res.end(), 10_000);
    res.once("close", () => clearTimeout(timer));
  } else if (fixture) res.writeHead(200, { ...octets, "Content-Length": String(fixture.length) }).end(fixture);
  else res.writeHead(404).end();
}

let server: Server;

export async function setup(project: TestProject) {
  const deliveries = new Map<string, Delivery[]>();
  const fixtures = await buildFixtures();
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const parts = url.pathname.split("/").filter(Boolean);
    if (req.method === "GET" && parts[0] === "media") {
      serveMedia(parts, url, res, fixtures);
      return;
    }
    // A server that takes the request and never answers (until the caller gives up).
    if (parts[0] === "silent") return;
    if (req.method === "GET" && parts[0] === "deliveries") {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(deliveries.get(parts[1] ?? "") ?? []));
      return;
    }
    if (req.method !== "POST" || parts[0] !== "hook") {
      res.writeHead(404).end();
      return;
    }
    const [, mode, name = ""] = parts;
    const list = deliveries.get(name) ?? [];
    list.push({ path: url.pathname, headers: req.headers as Record<string, string>, body: await readBody(req), at: Date.now() });
    deliveries.set(name, list);
    if (mode === "fail" && list.length <= Number(url.searchParams.get("times") ?? "1")) res.writeHead(500).end("boom");
    else if (mode === "gone") res.writeHead(410).end();
    else if (mode === "redirect") res.writeHead(302, { Location: `/hook/ok/${name}` }).end();
    else if (mode === "busy") res.writeHead(503, { "Retry-After": "120" }).end();
    else if (mode === "hang") {
      const late = setTimeout(() => res.writeHead(200).end("late"), Number(url.searchParams.get("ms") ?? "20000"));
      res.on("close", () => clearTimeout(late));
    } else res.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  project.provide("receiverUrl", `http://127.0.0.1:${port}`);
}

export async function teardown() {
  const closed = new Promise<void>((resolve) => server?.close(() => resolve()));
  // Held-open media responses (slow, big) must not keep the server from closing.
  server?.closeAllConnections();
  await closed;
}
