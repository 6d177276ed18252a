/**
 * Uploads: a client's media file kept as an artifact (`artifacts/<id>`, the same key and lookup as
 * outputs), usable as `{type: "artifact", artifact_id}` wherever a card takes artifacts.
 *
 * The bytes decide what a file is, never the declared Content-Type. The first bytes choose the
 * kind's size cap, so a declared length over it is refused before the body is read, and an image
 * whose header declares more pixels than any card accepts is refused there too; the body is
 * then read under that cap. The whole file is probed and validated exactly as admission does an
 * input (src/media/probe/, src/media/validate.ts): both walk the whole container, and an MP4's
 * movie box may be its last bytes, so the file is held in memory once, and written to R2 in one
 * `put` only after it has passed. A refused or broken upload therefore never leaves an object.
 */

import { checkImagePixels } from "../catalog/image-pixel-bound";
import { ApiError } from "../errors/api-error";
import { artifactKey } from "./artifacts";
import { otherTypeOf } from "./other-types";
import { imageSizeFromHeader, kindOfLeadingBytes, probeMedia } from "./probe";
import { validateMedia } from "./validate";

type MediaKind = "image" | "video" | "audio";

const MiB = 1024 * 1024;

/**
 * The most an input of each kind may be, whether uploaded, fetched from a URL or read from storage
 * at admission: one table, so that anything the service accepts it can also use. The file is
 * probed and validated whole, in the Worker's memory (128 MB), which is what bounds video.
 */
export const UPLOAD_CAP_BYTES: Record<MediaKind, number> = {
  image: 50 * MiB,
  video: 100 * MiB,
  audio: 100 * MiB,
};
export const MAX_UPLOAD_BYTES = Math.max(...Object.values(UPLOAD_CAP_BYTES));

/** Enough leading bytes to identify every format (and to tell text from binary). */
const HEAD_BYTES = 4096;

/** What the catalog allows of any input: an upload no card could take is refused. */
export interface UploadLimits {
  /** The most pixels an image may have (src/catalog/image-pixel-bound.ts); no bound when undefined. */
  maxImagePixels?: number;
}

export interface UploadSource {
  body: ReadableStream<Uint8Array> | null;
  /** The declared length of the file, when the client said it. */
  length?: number;
  /** JSON Pointer that faults of the file name: "" for a raw body, `/<field>` for a multipart part. */
  param: string;
}

export interface StoredUpload {
  artifact_id: string;
  kind: MediaKind;
  content_type: string;
  bytes: number;
  width?: number;
  height?: number;
  duration_seconds?: number;
  created_at: string;
  /** When the upload is deleted (the tenant's retention after it was sent). */
  expires_at?: string;
}

function tooLarge(kind: MediaKind, param: string, received?: number): ApiError {
  const max = UPLOAD_CAP_BYTES[kind];
  return new ApiError("media_too_large", `An uploaded ${kind} may be at most ${max} bytes.`, {
    param,
    details: { max_bytes: max, kind, ...(received !== undefined ? { received_bytes: received } : {}) },
  });
}

/**
 * Refuses an image larger than any card accepts, from its header: a small file can declare an
 * image that takes gigabytes to decode, and no input of that size would be taken anywhere.
 */
function checkPixels(size: { width?: number; height?: number } | undefined, limits: UploadLimits, param: string): void {
  checkImagePixels(size, limits.maxImagePixels, param);
}

function bodyFault(param: string, reason: string): ApiError {
  return new ApiError("invalid_request", `The upload was refused: ${reason}.`, {
    param,
    details: { errors: [{ loc: ["body"], reason }] },
  });
}

/** A new artifact id: `art_` and 32 random hex digits, the shape every artifact lookup expects. */
export function newArtifactId(): string {
  const random = crypto.getRandomValues(new Uint8Array(16));
  return `art_${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Reads chunks until `want` bytes are in hand or the body ends. */
async function readHead(reader: ReadableStreamDefaultReader<Uint8Array>, want: number) {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let done = false;
  while (total < want) {
    const next = await reader.read();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
    total += next.value.byteLength;
  }
  return { chunks, total, done };
}

function join(chunks: Uint8Array[], total: number, into = new Uint8Array(total)): Uint8Array {
  let at = 0;
  for (const c of chunks) {
    into.set(c, at);
    at += c.byteLength;
  }
  return into;
}

/** The kind the leading bytes announce, or the refusal that names what they are instead. */
function kindOf(head: Uint8Array, param: string): MediaKind {
  const other = otherTypeOf(head);
  if (other) {
    throw new ApiError(
      "unsupported_media_type",
      `The upload is ${other}, which no capability takes: send an image (PNG, JPEG, WebP, GIF), a video (MP4, MOV, WebM) or audio (WAV, MP3, FLAC, Ogg).`,
      { param, details: { detected: other } },
    );
  }
  const kind = kindOfLeadingBytes(head);
  if (!kind) {
    throw new ApiError(
      "invalid_media",
      "The upload is not a readable image (PNG, JPEG, WebP, GIF), video (MP4, MOV, WebM) or audio (WAV, MP3, FLAC, Ogg) file.",
      { param },
    );
  }
  return kind;
}

/** The whole file, under its kind's cap; refused as early as the declared length or the count allows. */
async function readFile(source: UploadSource, limits: UploadLimits): Promise<{ data: Uint8Array; kind: MediaKind }> {
  const { param, length } = source;
  if (length === 0 || !source.body) throw bodyFault(param, "the file is empty");
  const reader = source.body.getReader();
  try {
    const head = await readHead(reader, HEAD_BYTES);
    if (head.total === 0) throw bodyFault(param, "the file is empty");
    const first = join(head.chunks, head.total);
    const kind = kindOf(first, param);
    if (kind === "image") checkPixels(imageSizeFromHeader(first), limits, param);
    const cap = UPLOAD_CAP_BYTES[kind];
    if (length !== undefined && length > cap) throw tooLarge(kind, param, length);
    if (length !== undefined && head.total > length)
      throw bodyFault(param, `the body is longer than its declared ${length} bytes`);
    // A declared length is filled in place, so the file is held once; otherwise chunks are joined at the end.
    const into = length !== undefined ? join(head.chunks, head.total, new Uint8Array(length)) : undefined;
    const chunks = into ? [] : head.chunks;
    let total = head.total;
    for (let done = head.done; !done; ) {
      const next = await reader.read();
      if (next.done) done = true;
      else {
        const at = total;
        total += next.value.byteLength;
        if (total > cap) throw tooLarge(kind, param);
        if (into) {
          if (total > into.length) throw bodyFault(param, `the body is longer than its declared ${into.length} bytes`);
          into.set(next.value, at);
        } else chunks.push(next.value);
      }
    }
    if (into && total !== into.length) {
      throw bodyFault(param, `the body ended after ${total} of its declared ${into.length} bytes`);
    }
    return { data: into ?? join(chunks, total), kind };
  } catch (e) {
    if (e instanceof ApiError) {
      // Refused before its end: the rest is discarded before the answer (src/http/unread-body.ts).
      reader.releaseLock();
      throw e;
    }
    await reader.cancel().catch(() => undefined);
    // The client's stream broke (it went away, or sent a malformed chunked body).
    throw bodyFault(param, "the body could not be read to its end");
  }
}

/** Reads, identifies, measures and validates an uploaded file, then keeps it as the owner's artifact. */
export async function storeUpload(
  bucket: R2Bucket,
  source: UploadSource,
  owner: { tenant_id: string; key_id: string },
  limits: UploadLimits = {},
  retention?: { expires_at: string; before_store: (artifactId: string) => Promise<void> },
): Promise<StoredUpload> {
  const { data, kind: announced } = await readFile(source, limits);
  const probe = probeMedia(data, source.param);
  // Again from the probe, for a header past the first bytes (a JPEG's frame header after large EXIF
  // data), and before validation inflates the image data.
  if (probe.kind === "image") checkPixels(probe, limits, source.param);
  await validateMedia(data, probe, source.param);
  // An MP4 or WebM that holds only audio was read under the video cap: hold it to its own.
  if (probe.kind !== announced && data.length > UPLOAD_CAP_BYTES[probe.kind])
    throw tooLarge(probe.kind, source.param, data.length);
  const id = newArtifactId();
  // Its end is known to whoever deletes it before the bytes exist, so no crash leaves it kept for good.
  await retention?.before_store(id);
  const stored = await bucket.put(artifactKey(id), data, {
    httpMetadata: { contentType: probe.mime },
    customMetadata: {
      tenant_id: owner.tenant_id,
      key_id: owner.key_id,
      source: "upload",
      ...(retention ? { expires_at: retention.expires_at } : {}),
    },
  });
  return {
    artifact_id: id,
    kind: probe.kind,
    content_type: probe.mime,
    bytes: data.length,
    ...(probe.width !== undefined && probe.height !== undefined ? { width: probe.width, height: probe.height } : {}),
    ...(probe.duration_seconds !== undefined ? { duration_seconds: probe.duration_seconds } : {}),
    created_at: (stored?.uploaded ?? new Date()).toISOString(),
    ...(retention ? { expires_at: retention.expires_at } : {}),
  };
}
