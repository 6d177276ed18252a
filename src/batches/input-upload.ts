/**
 * A batch's input file, uploaded: `POST /v1/uploads` with `Content-Type: application/jsonl` (or
 * `application/x-ndjson`). The body is kept as it is, after checks that need no parsing: at most
 * 100 MiB, UTF-8 text, at most 10,000 lines holding something. Each line is parsed and validated
 * when a batch names the file (src/batches/input-file.ts), which answers with line numbers.
 */
import { ApiError } from "../errors/api-error";
import { LineSplitter, utf8Length } from "../lib/lines";
import { artifactKey } from "../media/artifacts";
import { newArtifactId } from "../media/uploads";
import { MAX_FILE_ITEMS } from "./admit-batch";
import { MAX_INPUT_FILE_BYTES, MAX_LINE_BYTES } from "./input-file";

export const JSON_LINES = "application/jsonl";

/** Whether an upload's declared type is JSON lines: the one upload whose type is not decided by its bytes. */
export function isJsonLines(contentType: string | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  return type === JSON_LINES || type === "application/x-ndjson";
}

export interface StoredJsonLines {
  artifact_id: string;
  kind: "jsonl";
  content_type: typeof JSON_LINES;
  bytes: number;
  lines: number;
  created_at: string;
  /** When the tenant's retention deletes it. */
  expires_at: string;
}

function refused(reason: string): ApiError {
  return new ApiError("invalid_request", `The upload was refused: ${reason}.`, {
    param: "",
    details: { errors: [{ loc: ["body"], reason }] },
  });
}

/**
 * The size of each part of a large file's multipart write to R2 (R2 wants every part but the last
 * of one size, at least 5 MiB): the most of the body the Worker holds at once, with one chunk.
 */
export const PART_BYTES = 8 * 1024 * 1024;

/**
 * Stores the body as it arrives, never holding it whole: each chunk is counted against the cap,
 * decoded (UTF-8, or refused) and split into lines that are counted and measured, and its bytes go
 * to R2 in parts of PART_BYTES (one put when the whole file is smaller). A refusal leaves the rest
 * of the body unread and stores nothing.
 */
export async function storeJsonLines(
  bucket: R2Bucket,
  body: ReadableStream<Uint8Array> | null,
  declared: number | undefined,
  owner: { tenant_id: string; key_id: string },
  retention: { expires_at: string; before_store: (artifactId: string) => Promise<void> },
): Promise<StoredJsonLines> {
  const tooLarge = () =>
    new ApiError("media_too_large", `A JSON lines upload may be at most ${MAX_INPUT_FILE_BYTES} bytes.`, {
      param: "",
      details: { max_bytes: MAX_INPUT_FILE_BYTES, ...(declared !== undefined ? { received_bytes: declared } : {}) },
    });
  if (declared !== undefined && declared > MAX_INPUT_FILE_BYTES) throw tooLarge();
  const id = newArtifactId();
  const options: R2PutOptions & R2MultipartOptions = {
    httpMetadata: { contentType: JSON_LINES },
    customMetadata: {
      tenant_id: owner.tenant_id,
      key_id: owner.key_id,
      source: "upload",
      expires_at: retention.expires_at,
    },
  };
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const splitter = new LineSplitter();
  let lines = 0;
  let lineNo = 0;
  const count = (found: string[]) => {
    for (const line of found) {
      lineNo++;
      if (utf8Length(line) > MAX_LINE_BYTES) throw refused(lineTooLong(lineNo));
      if (line.trim() === "") continue;
      if (++lines > MAX_FILE_ITEMS)
        throw refused(`the file holds more than ${MAX_FILE_ITEMS} lines; a batch takes at most ${MAX_FILE_ITEMS}`);
    }
    // A line still open that is already too long is refused before the rest of it arrives.
    if (splitter.pending > MAX_LINE_BYTES) throw refused(lineTooLong(lineNo + 1));
  };
  const decode = (chunk?: Uint8Array): string => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw refused("a JSON lines file must be UTF-8 text");
    }
  };

  const part = new Uint8Array(PART_BYTES);
  let filled = 0;
  let total = 0;
  let multipart: R2MultipartUpload | null = null;
  const parts: R2UploadedPart[] = [];
  const flushPart = async () => {
    if (!multipart) {
      // As a media upload: its end is known to whoever deletes it before the bytes exist.
      await retention.before_store(id);
      multipart = await bucket.createMultipartUpload(artifactKey(id), options);
    }
    // Sent once the call returns: the same buffer takes the next part, so a file of any size holds one part.
    parts.push(await multipart.uploadPart(parts.length + 1, part));
    filled = 0;
  };

  const reader = body?.getReader();
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = reader ? await reader.read() : { done: true, value: undefined };
      } catch {
        throw refused("the body could not be read to its end");
      }
      if (next.done) break;
      const chunk = next.value;
      total += chunk.byteLength;
      if (total > MAX_INPUT_FILE_BYTES) throw tooLarge();
      count(splitter.push(decode(chunk)));
      for (let at = 0; at < chunk.byteLength; ) {
        const n = Math.min(PART_BYTES - filled, chunk.byteLength - at);
        part.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === PART_BYTES) await flushPart();
      }
    }
    count([...splitter.push(decode()), ...splitter.end()]);
    if (lines === 0) throw refused("the file holds no line");
  } catch (e) {
    // The rest of the body stays readable: the request's end discards it before the answer (src/http/unread-body.ts).
    reader?.releaseLock();
    await (multipart as R2MultipartUpload | null)?.abort().catch(() => undefined);
    throw e;
  }
  let uploaded: Date;
  const last = part.subarray(0, filled);
  if (multipart) {
    const done = multipart as R2MultipartUpload;
    if (filled > 0) parts.push(await done.uploadPart(parts.length + 1, last));
    uploaded = (await done.complete(parts)).uploaded;
  } else {
    await retention.before_store(id);
    uploaded = (await bucket.put(artifactKey(id), last, options))?.uploaded ?? new Date();
  }
  return {
    artifact_id: id,
    kind: "jsonl",
    content_type: JSON_LINES,
    bytes: total,
    lines,
    created_at: uploaded.toISOString(),
    expires_at: retention.expires_at,
  };
}

function lineTooLong(line: number): string {
  return `line ${line} is longer than ${MAX_LINE_BYTES} bytes, the most one item may take`;
}
