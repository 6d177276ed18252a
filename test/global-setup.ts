/**
 * Starts what the tests need outside the Worker: a callback receiver on 127.0.0.1 that speaks
 * plain HTTP, records every delivery and answers as its path says.
 *   POST /hook/ok/<name>            200
 *   POST /hook/fail/<name>?times=N  500 for the first N deliveries, then 200
 *   POST /hook/gone/<name>          410
 *   POST /hook/redirect/<name>      302 to /hook/ok/<name>
 *   POST /hook/busy/<name>          503 with Retry-After: 120
 *   GET  /deliveries/<name>         what <name> received, as JSON
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { TestProject } from "vitest/node";

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

let server: Server;

export async function setup(project: TestProject) {
  const deliveries = new Map<string, Delivery[]>();
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const parts = url.pathname.split("/").filter(Boolean);
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
    else res.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  project.provide("receiverUrl", `http://127.0.0.1:${port}`);
}

export async function teardown() {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
}
