/**
 * A batch's input file, uploaded: `POST /v1/uploads` with `Content-Type: application/jsonl` (or
 * `application/x-ndjson`). The body is kept as it is, after checks that need no parsing: at most
 * 100 MiB, UTF-8 text, at most 10,000 lines holding something. Each line is parsed and validated
 * when a batch names the file (src/batches/input-file.ts), which answers with line numbers.
 */
import { ApiError } from "../errors/api-error";
import { readAtMost, TooLarge } from "../lib/streams";
import { artifactKey } from "../media/artifacts";
import { newArtifactId } from "../media/uploads";
import { MAX_FILE_ITEMS } from "./admit-batch";
import { MAX_INPUT_FILE_BYTES } from "./input-file";

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
  let data: Uint8Array;
  try {
    data = await readAtMost(body, MAX_INPUT_FILE_BYTES, { leaveRest: true });
  } catch (e) {
    if (e instanceof TooLarge) throw tooLarge();
    throw refused("the body could not be read to its end");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(data);
  } catch {
    throw refused("a JSON lines file must be UTF-8 text");
  }
  let lines = 0;
  for (const line of text.split("\n")) if (line.trim() !== "") lines++;
  if (lines === 0) throw refused("the file holds no line");
  if (lines > MAX_FILE_ITEMS) throw refused(`the file holds ${lines} lines; a batch takes at most ${MAX_FILE_ITEMS}`);
  const id = newArtifactId();
  // As a media upload: its end is known to whoever deletes it before the bytes exist.
  await retention.before_store(id);
  const stored = await bucket.put(artifactKey(id), data, {
    httpMetadata: { contentType: JSON_LINES },
    customMetadata: {
      tenant_id: owner.tenant_id,
      key_id: owner.key_id,
      source: "upload",
      expires_at: retention.expires_at,
    },
  });
  return {
    artifact_id: id,
    kind: "jsonl",
    content_type: JSON_LINES,
    bytes: data.length,
    lines,
    created_at: (stored?.uploaded ?? new Date()).toISOString(),
    expires_at: retention.expires_at,
  };
}
