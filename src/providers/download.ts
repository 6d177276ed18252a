/**
 * Copies an upstream's output into R2 before the task may succeed (upstream URLs expire: Replicate's
 * after an hour, others within a day). Provider-given URLs pass the same outside-URL policy as
 * client URLs, hop by hop. A body with a declared length streams straight into R2 under the cap;
 * one without is read under the cap (R2 needs a known length). The first bytes are kept for probing.
 */
import { readAtMost, TooLarge } from "../lib/streams";
import { checkOutsideUrl, type UrlPolicy } from "../lib/url-policy";

/** Per output kind: large enough for real outputs, small enough to bound a bad upstream. */
export const OUTPUT_CAP_BYTES: Record<"image" | "video" | "audio" | "text", number> = {
  image: 64 * 1024 * 1024,
  audio: 256 * 1024 * 1024,
  video: 2 * 1024 * 1024 * 1024,
  text: 8 * 1024 * 1024,
};
/** Unknown-length bodies are buffered; beyond this they are refused (they would not fit in memory). */
const UNKNOWN_LENGTH_CAP = 96 * 1024 * 1024;
/** Whole files up to this size are kept in memory for probing; larger ones stream. */
const BUFFER_BELOW = 48 * 1024 * 1024;
const HEAD_BYTES = 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 5 * 60 * 1000;
const MAX_REDIRECTS = 5;

export interface Downloaded {
  bytes: number;
  /** The whole file when it was small enough to hold, else its first MiB. */
  probeBytes: Uint8Array;
  whole: boolean;
  declaredType: string | null;
}

export class DownloadError extends Error {}

async function follow(url: string, headers: Record<string, string>, policy: UrlPolicy, signal: AbortSignal): Promise<Response> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const verdict = checkOutsideUrl(current, policy);
    if (!verdict.ok) throw new DownloadError(`the output URL ${verdict.reason}`);
    const res = await fetch(verdict.url.toString(), { headers, redirect: "manual", signal });
    if (![301, 302, 303, 307, 308].includes(res.status)) return res;
    await res.body?.cancel();
    const location = res.headers.get("location");
    if (!location) throw new DownloadError(`redirect ${res.status} without a location`);
    current = new URL(location, verdict.url).toString();
    // Credentials meant for the provider never follow a redirect to a storage host.
    headers = {};
  }
  throw new DownloadError("too many redirects");
}

/** Downloads `url` into R2 at `key`. Throws DownloadError (a failed attempt) on any problem. */
export async function downloadToR2(
  bucket: R2Bucket,
  key: string,
  source: { url: string; headers?: Record<string, string> },
  opts: {
    policy: UrlPolicy;
    maxBytes: number;
    contentType?: string;
    customMetadata: Record<string, string>;
    /** Reads a whole (buffered) file before it is stored: its real type, or a DownloadError. */
    inspect?: (bytes: Uint8Array) => string | undefined;
  },
): Promise<Downloaded> {
  const signal = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
  let res: Response;
  try {
    res = await follow(source.url, source.headers ?? {}, opts.policy, signal);
  } catch (e) {
    if (e instanceof DownloadError) throw e;
    throw new DownloadError(`the output could not be fetched: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new DownloadError(`the output URL answered ${res.status}`);
  }
  const declaredType = res.headers.get("content-type");
  const contentType = opts.contentType ?? declaredType ?? "application/octet-stream";
  const declared = res.headers.has("content-length") ? Number(res.headers.get("content-length")) : Number.NaN;
  if (Number.isFinite(declared) && declared > opts.maxBytes) {
    await res.body.cancel();
    throw new DownloadError(`the output has ${declared} bytes, more than the ${opts.maxBytes} allowed`);
  }
  const put = { httpMetadata: { contentType }, customMetadata: opts.customMetadata };
  if (Number.isFinite(declared) && declared >= BUFFER_BELOW) {
    // Stream: FixedLengthStream gives R2 its length and fails if the body is longer or shorter.
    const fixed = new FixedLengthStream(declared);
    let head = new Uint8Array(0);
    const keepHead = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        if (head.length < HEAD_BYTES) {
          const joined = new Uint8Array(Math.min(HEAD_BYTES, head.length + chunk.length));
          joined.set(head);
          joined.set(chunk.subarray(0, joined.length - head.length), head.length);
          head = joined;
        }
        ctl.enqueue(chunk);
      },
    });
    try {
      await Promise.all([res.body.pipeThrough(keepHead).pipeTo(fixed.writable), bucket.put(key, fixed.readable, put)]);
    } catch (e) {
      throw new DownloadError(`the output download broke off: ${e instanceof Error ? e.message : String(e)}`);
    }
    return { bytes: declared, probeBytes: head, whole: false, declaredType };
  }
  const cap = Math.min(opts.maxBytes, UNKNOWN_LENGTH_CAP);
  let bytes: Uint8Array;
  try {
    bytes = await readAtMost(res.body, cap);
  } catch (e) {
    throw new DownloadError(
      e instanceof TooLarge
        ? `the output is larger than the ${cap} bytes allowed`
        : `the output download broke off: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const total = bytes.length;
  if (Number.isFinite(declared) && total !== declared)
    throw new DownloadError(`the output ended after ${total} of ${declared} bytes`);
  const inspected = opts.inspect?.(bytes);
  await bucket.put(key, bytes, inspected ? { ...put, httpMetadata: { contentType: inspected } } : put);
  return { bytes: total, probeBytes: bytes, whole: true, declaredType };
}
