/**
 * The few S3 calls a destination needs (PutObject, DeleteObject), signed with SigV4 by aws4fetch.
 * Works with any S3-compatible store: AWS S3, R2 (region `auto`), MinIO, GCS's interoperability
 * endpoint. Redirects are never followed (S3 answers a wrong region with a 301 and an XML error).
 */
import { AwsClient } from "aws4fetch";
import { sha256Hex } from "../lib/crypto";

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
  /** `code`: S3's error code (`AccessDenied`, `NoSuchBucket`…), or `network_error`, `timeout`, `http_<status>`. */
  | { ok: false; status: number | null; code: string; message: string; retryable: boolean };

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
  return { ok: false, status, code, message, retryable };
}

async function send(t: S3Target, key: string, init: RequestInit & { headers: Record<string, string> }): Promise<S3Answer> {
  let res: Response;
  try {
    res = await client(t).fetch(objectUrl(t, key), {
      ...init,
      redirect: "manual",
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
  } catch (e) {
    const timeout = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
    return {
      ok: false,
      status: null,
      code: timeout ? "timeout" : "network_error",
      message: timeout ? `no answer within ${CALL_TIMEOUT_MS / 1000} s` : `the store could not be reached (${String(e)})`,
      retryable: true,
    };
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
): Promise<S3Answer> {
  if (body instanceof Uint8Array) {
    return send(t, key, {
      method: "PUT",
      body,
      headers: { "Content-Type": contentType, "X-Amz-Content-Sha256": await sha256Hex(body) },
    });
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

export function deleteObject(t: S3Target, key: string): Promise<S3Answer> {
  return send(t, key, { method: "DELETE", headers: { "X-Amz-Content-Sha256": EMPTY_SHA256 } });
}
