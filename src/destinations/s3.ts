/**
 * The few S3 calls a destination needs (PutObject, DeleteObject), signed with SigV4 by aws4fetch.
 * Works with any S3-compatible store: AWS S3, R2 (region `auto`), MinIO, GCS's interoperability
 * endpoint. Redirects are never followed (S3 answers a wrong region with a 301 and an XML error).
 */
import { AwsClient } from "aws4fetch";
import { sha256Hex } from "../lib/crypto";
import { classifyFetchError, httpCause, isTimeout, type OutboundCause, timedOut } from "../lib/outbound-cause";

/** Where and as whom: a destination with its credentials opened (only ever in memory). */
export interface S3Target {
  endpoint: string;
  bucket: string;
  region: string;
  path_style: boolean;
  access_key_id: string;
  secret_access_key: string;
}

export type S3Answer =
  | { ok: true; etag: string | null }
  /**
   * `code`: S3's error code (`AccessDenied`, `NoSuchBucket`…), else the cause. `cause`: the kind of
   * failure (src/lib/outbound-cause.ts): `http_<status>` for an answer, else the network kind.
   */
  | { ok: false; status: number | null; code: string; message: string; retryable: boolean; cause: OutboundCause };

/** A delivery's write may be large: it has this long. */
const CALL_TIMEOUT_MS = 60_000;

/** At or under this size the payload is read and its SHA-256 signed; above it, streamed as UNSIGNED-PAYLOAD. */
export const SIGNED_PAYLOAD_MAX_BYTES = 64 * 1024 * 1024;

/** An IP address or `localhost` has no bucket subdomain: such endpoints are addressed path style. */
function pathStyle(t: S3Target, host: string): boolean {
  return t.path_style || host === "localhost" || /^[\d.]+$/.test(host) || host.startsWith("[");
}

/** The object's URL: `https://<bucket>.<host>/<key>` (virtual-hosted) or `https://<host>/<bucket>/<key>`. */
export function objectUrl(t: S3Target, key: string): string {
  const base = new URL(t.endpoint);
  const path = key.split("/").map(encodeURIComponent).join("/");
  if (pathStyle(t, base.hostname)) return `${base.origin}/${encodeURIComponent(t.bucket)}/${path}`;
  return `${base.protocol}//${t.bucket}.${base.host}/${path}`;
}

function client(t: S3Target): AwsClient {
  // Retries are the caller's (the task's backoff), never hidden inside one call.
  return new AwsClient({
    accessKeyId: t.access_key_id,
    secretAccessKey: t.secret_access_key,
    service: "s3",
    region: t.region,
    retries: 0,
  });
}

/** S3's `<Error><Code>…</Code><Message>…</Message></Error>`, read without an XML parser. */
function errorFrom(status: number, body: string): S3Answer {
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(body)?.[1] ?? `http_${status}`;
  const message = /<Message>([^<]{0,500})<\/Message>/.exec(body)?.[1] ?? `the store answered HTTP ${status}`;
  const retryable = status >= 500 || status === 429 || code === "SlowDown" || code === "RequestTimeout";
  return { ok: false, status, code, message, retryable, cause: httpCause(status) };
}

async function send(
  t: S3Target,
  key: string,
  init: RequestInit & { headers: Record<string, string> },
  timeoutMs = CALL_TIMEOUT_MS,
): Promise<S3Answer> {
  let res: Response;
  const url = objectUrl(t, key);
  try {
    res = await client(t).fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    const lost = isTimeout(e) ? timedOut(url, timeoutMs) : await classifyFetchError(e, url);
    return { ok: false, status: null, code: lost.cause, message: lost.words, retryable: true, cause: lost.cause };
  }
  if (res.status >= 200 && res.status < 300) {
    await res.body?.cancel();
    return { ok: true, etag: res.headers.get("ETag") };
  }
  return errorFrom(res.status, (await res.text()).slice(0, 4096));
}

export async function putObject(
  t: S3Target,
  key: string,
  body: Uint8Array | { stream: ReadableStream; bytes: number },
  contentType: string,
  timeoutMs?: number,
): Promise<S3Answer> {
  if (body instanceof Uint8Array) {
    return send(
      t,
      key,
      { method: "PUT", body, headers: { "Content-Type": contentType, "X-Amz-Content-Sha256": await sha256Hex(body) } },
      timeoutMs,
    );
  }
  return send(t, key, {
    method: "PUT",
    body: body.stream,
    headers: {
      "Content-Type": contentType,
      "Content-Length": String(body.bytes),
      "X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD",
    },
  });
}

const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

export function deleteObject(t: S3Target, key: string, timeoutMs?: number): Promise<S3Answer> {
  return send(t, key, { method: "DELETE", headers: { "X-Amz-Content-Sha256": EMPTY_SHA256 } }, timeoutMs);
}
