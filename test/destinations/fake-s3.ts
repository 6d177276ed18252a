/**
 * A fake S3-compatible object store, started by vitest's global setup on 127.0.0.1, written from
 * the Amazon S3 API reference: "Authenticating Requests (AWS Signature Version 4)" (the
 * Authorization header, single-chunk payloads, signed or UNSIGNED-PAYLOAD), PutObject,
 * DeleteObject, GetObject and the REST error response (an XML <Error> document). It checks what
 * S3 checks, in S3's order, and answers S3's codes:
 *   InvalidAccessKeyId (403), AuthorizationHeaderMalformed (400, wrong region in the scope),
 *   SignatureDoesNotMatch (403), RequestTimeTooSkewed (403), XAmzContentSHA256Mismatch (400),
 *   NoSuchBucket (404), AccessDenied (403), NoSuchKey (404), InternalError (500), SlowDown (503).
 * Addressing: path style (`/<bucket>/<key>`) and virtual-hosted style (`Host: <bucket>.<host>`
 * where the host is a name, not an IP address).
 *
 * Its own control routes, for the tests (never signed):
 *   POST /_fake/buckets {region?}          a new bucket and the one key pair allowed to use it
 *   POST /_fake/buckets/<b>/faults {times, status: 500|503}   the next `times` object requests fail
 *   POST /_fake/buckets/<b>/deny {deny}    a bucket policy refusing writes (AccessDenied) or not
 *   GET  /_fake/buckets/<b>/objects        [{key, bytes, etag, content_type, sha256}]
 *   GET  /_fake/buckets/<b>/requests       [{method, key, status, code, content_sha256}], oldest first
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIP } from "node:net";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    fakeS3Url: string;
  }
}

interface StoredObject {
  data: Buffer;
  etag: string;
  content_type: string;
}

interface Bucket {
  name: string;
  region: string;
  access_key_id: string;
  secret_access_key: string;
  objects: Map<string, StoredObject>;
  faults: { times: number; status: 500 | 503 };
  deny: boolean;
  requests: { method: string; key: string; status: number; code: string | null; content_sha256: string | null }[];
}

const buckets = new Map<string, Bucket>();
const keyOwners = new Map<string, Bucket>();

/** Requests signed more than 15 minutes from the server's clock are refused (S3's window). */
const MAX_SKEW_MS = 15 * 60 * 1000;

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function xmlEscape(s: string): string {
  return s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sendError(res: ServerResponse, e: S3Error, resource: string, requestId: string): void {
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${e.code}</Code><Message>${xmlEscape(e.message)}</Message>` +
    `<Resource>${xmlEscape(resource)}</Resource><RequestId>${requestId}</RequestId></Error>`;
  res.writeHead(e.status, { "Content-Type": "application/xml", "x-amz-request-id": requestId });
  res.end(body);
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");
const hmac = (key: Buffer | string, data: string) => createHmac("sha256", key).update(data).digest();

/** RFC 3986 encoding as SigV4 asks: unreserved characters kept, everything else %XX in upper case. */
function uriEncode(s: string, keepSlash: boolean): string {
  let out = "";
  for (const byte of Buffer.from(s, "utf8")) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === "/")) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

interface ParsedAuth {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

function parseAuthorization(header: string | undefined): ParsedAuth {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([a-z0-9\-;]+),\s*Signature=([0-9a-f]{64})$/.exec(
      header ?? "",
    );
  if (!m) {
    if (!header) throw new S3Error(403, "AccessDenied", "Access Denied");
    throw new S3Error(400, "AuthorizationHeaderMalformed", "The authorization header is malformed.");
  }
  return {
    accessKeyId: m[1] as string,
    date: m[2] as string,
    region: m[3] as string,
    service: m[4] as string,
    signedHeaders: (m[5] as string).split(";"),
    signature: m[6] as string,
  };
}

/** The signature S3 computes for this request (the canonical request of the SigV4 reference). */
function expectedSignature(req: IncomingMessage, url: URL, auth: ParsedAuth, secret: string, payloadHash: string): string {
  // S3 does not normalise the path: each segment is encoded once.
  const path = url.pathname
    .split("/")
    .map((seg) => uriEncode(decodeURIComponent(seg), false))
    .join("/");
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => [uriEncode(k, false), uriEncode(v, false)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const headers = auth.signedHeaders
    .map((name) => {
      const raw = req.headers[name];
      const value = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
      return `${name}:${value.trim().replace(/\s+/g, " ")}\n`;
    })
    .join("");
  const canonical = [req.method, path, query, headers, auth.signedHeaders.join(";"), payloadHash].join("\n");
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const kDate = hmac(`AWS4${secret}`, auth.date);
  const kRegion = hmac(kDate, auth.region);
  const kService = hmac(kRegion, auth.service);
  const kSigning = hmac(kService, "aws4_request");
  return createHmac("sha256", kSigning).update(toSign).digest("hex");
}

/** Which bucket and key the request addresses: virtual-hosted when the host names one, else path style. */
function address(req: IncomingMessage, url: URL): { bucket: string; key: string } {
  const host = String(req.headers.host ?? "").replace(/:\d+$/, "");
  const labels = host.split(".");
  if (!isIP(host) && labels.length > 1 && buckets.has(labels[0] as string)) {
    return { bucket: labels[0] as string, key: decodeURIComponent(url.pathname.slice(1)) };
  }
  const [, bucket = "", ...rest] = url.pathname.split("/");
  return { bucket: decodeURIComponent(bucket), key: rest.map(decodeURIComponent).join("/") };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Authenticates and serves one object request; throws S3Error for every refusal. */
function serveObject(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer, requestId: string): void {
  const auth = parseAuthorization(req.headers.authorization);
  const owner = keyOwners.get(auth.accessKeyId);
  if (!owner) throw new S3Error(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
  const { bucket: name, key } = address(req, url);
  if (auth.service !== "s3") throw new S3Error(400, "AuthorizationHeaderMalformed", `The service '${auth.service}' is wrong.`);
  const target = buckets.get(name);
  if (target && auth.region !== target.region) {
    throw new S3Error(
      400,
      "AuthorizationHeaderMalformed",
      `The authorization header is malformed; the region '${auth.region}' is wrong; expecting '${target.region}'`,
    );
  }
  const claimed = req.headers["x-amz-content-sha256"];
  if (typeof claimed !== "string")
    throw new S3Error(400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256");
  if (!auth.signedHeaders.includes("host") || !auth.signedHeaders.includes("x-amz-date")) {
    throw new S3Error(400, "AuthorizationHeaderMalformed", "The host and x-amz-date headers must be signed.");
  }
  const expected = expectedSignature(req, url, auth, owner.secret_access_key, claimed);
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(auth.signature))) {
    throw new S3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    );
  }
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  const at = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"));
  if (!Number.isFinite(at) || Math.abs(Date.now() - at) > MAX_SKEW_MS || !amzDate.startsWith(auth.date)) {
    throw new S3Error(403, "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.");
  }
  if (claimed !== "UNSIGNED-PAYLOAD" && claimed !== sha256(body)) {
    throw new S3Error(
      400,
      "XAmzContentSHA256Mismatch",
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    );
  }
  if (!target) throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist");
  // A key pair reaches its own bucket only (an IAM policy scoped to it).
  if (owner !== target) throw new S3Error(403, "AccessDenied", "Access Denied");
  if (target.faults.times > 0) {
    target.faults.times--;
    throw target.faults.status === 503
      ? new S3Error(503, "SlowDown", "Please reduce your request rate.")
      : new S3Error(500, "InternalError", "We encountered an internal error. Please try again.");
  }
  if (!key) throw new S3Error(400, "InvalidRequest", "This fake serves object requests only.");
  if (req.method === "PUT") {
    if (target.deny) throw new S3Error(403, "AccessDenied", "Access Denied");
    const etag = `"${createHash("md5").update(body).digest("hex")}"`;
    target.objects.set(key, {
      data: body,
      etag,
      content_type: String(req.headers["content-type"] ?? "binary/octet-stream"),
    });
    res.writeHead(200, { ETag: etag, "x-amz-request-id": requestId });
    res.end();
    return;
  }
  if (req.method === "DELETE") {
    if (target.deny) throw new S3Error(403, "AccessDenied", "Access Denied");
    // S3 answers 204 whether or not the key existed.
    target.objects.delete(key);
    res.writeHead(204, { "x-amz-request-id": requestId });
    res.end();
    return;
  }
  if (req.method === "GET" || req.method === "HEAD") {
    const obj = target.objects.get(key);
    if (!obj) throw new S3Error(404, "NoSuchKey", "The specified key does not exist.");
    res.writeHead(200, {
      ETag: obj.etag,
      "Content-Type": obj.content_type,
      "Content-Length": String(obj.data.length),
      "x-amz-request-id": requestId,
    });
    res.end(req.method === "GET" ? obj.data : undefined);
    return;
  }
  throw new S3Error(405, "MethodNotAllowed", "The specified method is not allowed against this resource.");
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(value));
}

function control(req: IncomingMessage, res: ServerResponse, parts: string[], body: Buffer) {
  const input = body.length > 0 ? (JSON.parse(body.toString("utf8")) as Record<string, unknown>) : {};
  if (req.method === "POST" && parts.length === 2) {
    const name = `bkt-${randomUUID().slice(0, 12)}`;
    const bucket: Bucket = {
      name,
      region: typeof input.region === "string" ? input.region : "us-east-1",
      access_key_id: `AKIA${randomBytes(8).toString("hex").toUpperCase()}`,
      secret_access_key: randomBytes(30).toString("base64"),
      objects: new Map(),
      faults: { times: 0, status: 503 },
      deny: false,
      requests: [],
    };
    buckets.set(name, bucket);
    keyOwners.set(bucket.access_key_id, bucket);
    return json(res, 201, {
      bucket: name,
      region: bucket.region,
      access_key_id: bucket.access_key_id,
      secret_access_key: bucket.secret_access_key,
    });
  }
  const bucket = buckets.get(parts[2] ?? "");
  if (!bucket) return json(res, 404, { error: "no such bucket" });
  const action = parts[3];
  if (req.method === "POST" && action === "faults") {
    bucket.faults = { times: Number(input.times ?? 1), status: input.status === 500 ? 500 : 503 };
    return json(res, 200, bucket.faults);
  }
  if (req.method === "POST" && action === "deny") {
    bucket.deny = input.deny !== false;
    return json(res, 200, { deny: bucket.deny });
  }
  if (req.method === "GET" && action === "objects") {
    return json(
      res,
      200,
      [...bucket.objects.entries()].map(([key, o]) => ({
        key,
        bytes: o.data.length,
        etag: o.etag,
        content_type: o.content_type,
        sha256: sha256(o.data),
      })),
    );
  }
  if (req.method === "GET" && action === "requests") return json(res, 200, bucket.requests);
  json(res, 404, { error: "unknown control route" });
}

let server: Server | undefined;

/** Starts the store on 127.0.0.1 (the benchmarks start one too); answers its URL. */
export async function startFakeS3(): Promise<string> {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const parts = url.pathname.split("/").filter(Boolean);
    const body = await readBody(req);
    if (parts[0] === "_fake") return control(req, res, parts, body);
    const requestId = randomBytes(8).toString("hex").toUpperCase();
    const { bucket, key } = address(req, url);
    const log = (status: number, code: string | null) =>
      buckets.get(bucket)?.requests.push({
        method: req.method ?? "GET",
        key,
        status,
        code,
        content_sha256: (req.headers["x-amz-content-sha256"] as string | undefined) ?? null,
      });
    try {
      serveObject(req, res, url, body, requestId);
      log(res.statusCode, null);
    } catch (e) {
      const err = e instanceof S3Error ? e : new S3Error(500, "InternalError", String(e));
      log(err.status, err.code);
      sendError(res, err, url.pathname, requestId);
    }
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const a = server.address();
  return `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`;
}

export async function setup(project: TestProject) {
  project.provide("fakeS3Url", await startFakeS3());
}

export async function teardown() {
  await new Promise<void>((resolve) => {
    server?.closeAllConnections();
    server?.close(() => resolve());
  });
}
