/**
 * What every fake upstream shares. A fake is a Node HTTP server on 127.0.0.1 that speaks one
 * provider's documented wire format; the conformance suite (test/providers/conformance.ts)
 * drives it through the text it sends the upstream (a prompt, or speech input):
 *   `#tag:<id>`        groups the requests of one test case (GET /_fake/requests?tag=<id>)
 *   `#fake:<scenario>` picks a behaviour; several may be given. See SCENARIOS.
 * Every fake serves its outputs itself, from /_files/…, so the service really downloads them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { encode } from "fast-png";

export const SCENARIOS = [
  /** (default) queued on the first status read, running with progress on the second, done on the third. */
  "ok",
  /** The first submission of the tag is refused with 429 and Retry-After: 1; later ones succeed. */
  "submit_429",
  /** The first submission of the tag fails with a 500 in the provider's error format; later ones succeed. */
  "submit_5xx",
  /** Every submission fails with 503 (a route that is down: the task must move to the next route). */
  "down",
  /** The provider's documented refusal of the input on content policy. */
  "safety_input",
  /** The provider's documented signal that the output was filtered. */
  "safety_output",
  /** Each output URL answers once; afterwards it is gone (as signed upstream URLs expire). */
  "expiring_output",
  /** The last output URL of a result answers 404 from the start: the others download, that one never. */
  "partial_output",
  /** The status answer carries a status the documentation does not list, twice, then goes on as "ok". */
  "unknown_status",
  /** The status or result answer is malformed (not JSON, or without the documented fields), every time. */
  "malformed",
  /** The job stays queued until it is canceled. */
  "slow",
  /** The submission is accepted (the job runs) but the connection drops before the answer arrives. */
  "answer_lost",
] as const;
export type Scenario = (typeof SCENARIOS)[number];

export type RequestKind = "submit" | "status" | "result" | "cancel" | "download" | "list" | "other";

/** One request a fake recorded, as GET /_fake/requests answers it; `B` is what a test reads the body as. */
export interface Recorded<B = unknown> {
  kind: RequestKind;
  method: string;
  path: string;
  authorization: string | null;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or for multipart the field names with file sizes, or null. */
  body: B;
  at: number;
}

/**
 * The scenarios a text asks of `provider`: `#fake:<scenario>` applies to every fake,
 * `#fake:<scenario>@<provider>` only to that one (a failover case: one route down, the next fine).
 */
export function scenariosOf(text: string, provider?: string): Set<Scenario> {
  const found = new Set<Scenario>();
  for (const m of text.matchAll(/#fake:([a-z0-9_]+)(?:@([a-z0-9-]+))?/g)) {
    if (m[2] !== undefined && m[2] !== provider) continue;
    if ((SCENARIOS as readonly string[]).includes(m[1] as string)) found.add(m[1] as Scenario);
  }
  return found;
}

export function tagOf(text: string): string {
  return /#tag:([A-Za-z0-9_.-]+)/.exec(text)?.[1] ?? "untagged";
}

/** Requests by tag, and the control endpoint that reads them. */
export class RequestLog {
  private readonly byTag = new Map<string, Recorded[]>();
  record(tag: string, req: IncomingMessage, kind: RequestKind, body: unknown): void {
    const list = this.byTag.get(tag) ?? [];
    list.push({
      kind,
      method: req.method ?? "GET",
      path: req.url ?? "/",
      authorization: (req.headers.authorization as string | undefined) ?? null,
      headers: req.headers,
      body,
      at: Date.now(),
    });
    this.byTag.set(tag, list);
  }
  count(tag: string, kind: RequestKind): number {
    return (this.byTag.get(tag) ?? []).filter((r) => r.kind === kind).length;
  }
  /** Serves GET /_fake/requests?tag=<id>; returns true when it answered. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== "/_fake/requests") return false;
    json(res, 200, this.byTag.get(url.searchParams.get("tag") ?? "") ?? []);
    return true;
  }
}

/**
 * The credentials a fake accepts: the platform's (`fakeKey`) and a tenant's own keys, named
 * `tenant-<provider>-<anything>`, until a test revokes one (POST /_fake/revoke-key?key=…), as an
 * account holder revoking a key at the provider would.
 */
export class KeyRing {
  /**
   * Revoked keys, keys whose account ran out of credit (`?as=quota`: accepted, but every call
   * refused), and revoked keys the refusal quotes back encoded (`?as=echo`), as some upstreams do.
   */
  private readonly revoked = new Map<string, "revoked" | "quota" | "echo">();
  accepts(provider: string, key: string | undefined | null): boolean {
    if (!key || this.revoked.get(key) === "revoked" || this.revoked.get(key) === "echo") return false;
    return key === fakeKey(provider) || key.startsWith(`tenant-${provider}-`);
  }
  /** A valid key whose account has no quota left. */
  exhausted(key: string | undefined | null): boolean {
    return !!key && this.revoked.get(key) === "quota";
  }
  /** A refused key the refusal quotes back: URL-encoded, in a `Basic` credential, base64url and JSON-escaped. */
  echo(key: string | undefined | null): string | null {
    if (!key || this.revoked.get(key) !== "echo") return null;
    const basic = Buffer.from(`api:${key}`).toString("base64");
    const url = Buffer.from(key).toString("base64url");
    return `bad key ${encodeURIComponent(key)} (sent as Basic ${basic}, id ${url}, json ${JSON.stringify(key).slice(1, -1).replace(/\//g, "\\/")}, form ${new URLSearchParams({ k: key }).toString().slice(2)}, starts ${key.slice(0, 9)}…)`;
  }
  /** Serves POST /_fake/revoke-key?key=…[&as=quota|echo]; returns true when it answered. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "POST" || url.pathname !== "/_fake/revoke-key") return false;
    const as = url.searchParams.get("as");
    this.revoked.set(url.searchParams.get("key") ?? "", as === "quota" ? "quota" : as === "echo" ? "echo" : "revoked");
    json(res, 200, { revoked: true });
    return true;
  }
}

/** Output files the fake serves at /_files/<id>; `once` files answer 404 after their first download. */
export class FileStore {
  private readonly files = new Map<string, { bytes: Uint8Array; type: string; once: boolean; served: number; tag: string }>();
  private n = 0;
  constructor(
    private readonly base: () => string,
    private readonly log: RequestLog,
  ) {}
  add(bytes: Uint8Array, type: string, opts: { once?: boolean; tag: string; ext?: string }): string {
    const id = `f${++this.n}-${Math.random().toString(36).slice(2, 10)}${opts.ext ? `.${opts.ext}` : ""}`;
    this.files.set(id, { bytes, type, once: opts.once ?? false, served: 0, tag: opts.tag });
    // Upstreams hand out signed, expiring URLs; the query looks like one.
    return `${this.base()}/_files/${id}?Expires=${Math.floor(Date.now() / 1000) + 3600}&Signature=fakesig${this.n}`;
  }
  /** Serves GET /_files/<id>; returns true when the path was one of its own. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const m = /^\/_files\/([^/]+)$/.exec(url.pathname);
    if (!m || req.method !== "GET") return false;
    const file = this.files.get(m[1] as string);
    if (file) this.log.record(file.tag, req, "download", null);
    if (!file || (file.once && file.served > 0)) {
      res.writeHead(404, { "Content-Type": "application/xml" }).end("<Error><Code>NoSuchKey</Code></Error>");
      return true;
    }
    file.served++;
    res.writeHead(200, { "Content-Type": file.type, "Content-Length": String(file.bytes.length) }).end(file.bytes);
    return true;
  }
}

/** A real PNG of the given size (a gradient), so the service's probe reads true dimensions. */
export function png(width: number, height: number, seed = 0): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      data[i] = (x * 255) / Math.max(1, width - 1);
      data[i + 1] = (y * 255) / Math.max(1, height - 1);
      data[i + 2] = (seed * 37) & 255;
    }
  return encode({ width, height, data, channels: 3, depth: 8 });
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(JSON.stringify(body));
}

export interface RunningFake {
  url: string;
  close(): Promise<void>;
}

/** Drops the connection without an answer: the caller cannot tell whether the request was taken. */
export function dropConnection(res: ServerResponse): void {
  res.socket?.destroy();
}

/** A fake's own routes: every request but the kit's (the request log, the output files). */
export type FakeRoutes = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void;

/**
 * One fake's server, with what every fake has: its request log, the output files it serves, its
 * own address and a count of submissions by tag. A fake makes one, declares its routes and listens.
 */
export class FakeServer {
  readonly log = new RequestLog();
  readonly files = new FileStore(() => this.base, this.log);
  readonly keys = new KeyRing();
  /** The fake's own URL, known once it listens (read it while answering). */
  base = "";
  private readonly submissions = new Map<string, number>();

  /** Counts a submission of `tag` and says which it is (1 for the first: see `submit_429`, `submit_5xx`). */
  submission(tag: string): number {
    const n = (this.submissions.get(tag) ?? 0) + 1;
    this.submissions.set(tag, n);
    return n;
  }

  /**
   * Starts on a free port of 127.0.0.1. The log and the files are answered before `routes`;
   * `routes` may be async, and a throw answers 500.
   */
  async listen(routes: FakeRoutes): Promise<RunningFake> {
    const server = createServer((req, res) => {
      if (this.log.serve(req, res) || this.files.serve(req, res) || this.keys.serve(req, res)) return;
      Promise.resolve()
        .then(() => routes(req, res, new URL(req.url ?? "/", this.base)))
        .catch((e) => {
          if (!res.headersSent) json(res, 500, { error: String(e) });
          else res.destroy();
        });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    this.base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    return {
      url: this.base,
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  }
}

/**
 * A job's life in a fake, counted in status reads: "ok" is queued on read 1, running on read 2,
 * done on read 3; "unknown_status" answers an unlisted status on reads 1 and 2 first; "slow" stays queued.
 */
export function lifeStage(reads: number, scenarios: Set<Scenario>): "unknown" | "queued" | "running" | "done" {
  let r = reads;
  if (scenarios.has("unknown_status")) {
    if (r <= 2) return "unknown";
    r -= 2;
  }
  if (scenarios.has("slow")) return "queued";
  return r <= 1 ? "queued" : r === 2 ? "running" : "done";
}

/** The API key a fake accepts for provider `name` (the providers test project configures it). */
export function fakeKey(name: string): string {
  return `fake-${name}-key-0123456789abcdef`;
}
