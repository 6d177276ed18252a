/**
 * A fake of the HTTP email API the service speaks (Resend's `POST /emails`), started by vitest's
 * global setup. It checks what the real API checks and answers as its documentation says:
 *   POST /<scenario>/emails   `Authorization: Bearer re_…`, JSON `{from, to, subject, text|html}`
 *     scenario `ok`:   200 `{"id": "<uuid>"}`
 *     scenario `fail`: 500 `{"statusCode":500,"message":…,"name":"application_error"}`
 *     scenario `hold-<name>`: as `ok`, but the answer waits until `POST /hold-<name>/release`
 *       (a slow mail API, so that a test can see what answers before the mail is sent)
 *     no or malformed key: 401 `missing_api_key`; a body without a field it needs: 422 `validation_error`
 *   GET /<scenario>/sent       every request it received, oldest first (tests read them); a held
 *                              one shows `status: null` until it is answered
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    fakeMailApiUrl: string;
  }
}

interface Received {
  authorization: string | null;
  idempotency_key: string | null;
  content_type: string | null;
  body: unknown;
  status: number | null;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function problem(statusCode: number, name: string, message: string) {
  return { statusCode, name, message };
}

/** What Resend would answer to this request, before the scenario decides. */
function check(authorization: string | null, body: any): { status: number; json: unknown } | null {
  if (!authorization || !/^Bearer re_\S+$/.test(authorization)) {
    return { status: 401, json: problem(401, "missing_api_key", "Missing API key in the authorization header.") };
  }
  if (!body || typeof body !== "object") return { status: 422, json: problem(422, "validation_error", "Invalid JSON body.") };
  for (const field of ["from", "to", "subject"]) {
    if (body[field] === undefined) return { status: 422, json: problem(422, "validation_error", `Missing \`${field}\` field.`) };
  }
  const to = Array.isArray(body.to) ? body.to : [body.to];
  if (to.length < 1 || to.length > 50 || to.some((t: unknown) => typeof t !== "string")) {
    return { status: 422, json: problem(422, "validation_error", "Invalid `to` field.") };
  }
  if (typeof body.text !== "string" && typeof body.html !== "string") {
    return { status: 422, json: problem(422, "validation_error", "Missing `html` or `text` field.") };
  }
  return null;
}

let server: Server | undefined;

export async function setup(project: TestProject) {
  const received = new Map<string, Received[]>();
  /** Held answers per `hold-…` scenario, sent on its release. */
  const held = new Map<string, (() => void)[]>();
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const [, scenario, action] = url.pathname.split("/");
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(json));
    };
    if (req.method === "GET" && action === "sent") return send(200, received.get(scenario ?? "") ?? []);
    if (req.method === "POST" && action === "release") {
      const waiting = held.get(scenario ?? "") ?? [];
      held.delete(scenario ?? "");
      for (const answer of waiting) answer();
      return send(200, { released: waiting.length });
    }
    if (req.method !== "POST" || action !== "emails")
      return send(404, problem(404, "not_found", "The requested endpoint does not exist."));
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const authorization = req.headers.authorization ?? null;
    const refused = check(authorization, body);
    const answer =
      refused ??
      (scenario === "fail"
        ? { status: 500, json: problem(500, "application_error", "An unexpected error occurred.") }
        : { status: 200, json: { id: randomUUID() } });
    const list = received.get(scenario ?? "") ?? [];
    const entry: Received = {
      authorization,
      idempotency_key: (req.headers["idempotency-key"] as string | undefined) ?? null,
      content_type: req.headers["content-type"] ?? null,
      body,
      status: answer.status,
    };
    list.push(entry);
    received.set(scenario ?? "", list);
    if (!refused && scenario?.startsWith("hold-")) {
      entry.status = null;
      const waiting = held.get(scenario) ?? [];
      waiting.push(() => {
        entry.status = answer.status;
        send(answer.status, answer.json);
      });
      held.set(scenario, waiting);
      return;
    }
    send(answer.status, answer.json);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  project.provide("fakeMailApiUrl", `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`);
}

export async function teardown() {
  await new Promise<void>((resolve) => {
    server?.closeAllConnections();
    server?.close(() => resolve());
  });
}
