/**
 * A batch's items from an upload of JSON lines: one `{custom_id, body}` per line (blank lines are
 * passed over), at most 10,000 lines and 100 MiB, a line at most 1 MiB. A line that is not such an object refuses the
 * batch with its line number (1-based), as an invalid item's body does.
 */
import type { Env } from "../env";
import { ApiError, type FieldError } from "../errors/api-error";
import { clause } from "../errors/sentence";
import type { TaskScope } from "../keys/scope";
import { linesOf, utf8Length } from "../lib/lines";
import { artifactKey } from "../media/artifacts";
import { artifactInScope } from "../tasks/artifact-scope";
import { type BatchItemInput, type ItemSource, MAX_FILE_ITEMS } from "./admit-batch";

export const MAX_INPUT_FILE_BYTES = 100 * 1024 * 1024;
/** One line, one item: its body is kept in one row of the batch object, whose rows hold at most 2 MB. */
export const MAX_LINE_BYTES = 1024 * 1024;
const MAX_LISTED = 100;

/**
 * The items of an input file, read from R2 line by line each time they are asked for (admission
 * reads them twice: to validate, then to write), so that no more than a line and a chunk of the
 * file is ever held. The file's checks that need no line (its owner, type and size) are made here.
 */
export async function inputFileItems(env: Env, scope: TaskScope, fileId: string): Promise<ItemSource> {
  const notFound = () => new ApiError("artifact_not_found", `Artifact '${fileId}' does not exist.`, { param: "/input_file_id" });
  const head = await artifactInScope(env, fileId, scope);
  if (!head) throw notFound();
  if (head.httpMetadata?.contentType !== "application/jsonl") {
    throw new ApiError("invalid_request", `Artifact '${fileId}' is not a JSON lines upload (application/jsonl).`, {
      param: "/input_file_id",
      details: {
        errors: [
          { loc: ["body", "input_file_id"], reason: `the artifact is ${head.httpMetadata?.contentType ?? "of no known type"}` },
        ],
      },
    });
  }
  if (head.size > MAX_INPUT_FILE_BYTES) {
    throw new ApiError("invalid_request", `An input file may be at most ${MAX_INPUT_FILE_BYTES} bytes.`, {
      param: "/input_file_id",
    });
  }
  return {
    async *read() {
      // The same bytes on every read: a file replaced or deleted in between is not read as the one validated.
      const object = await env.ARTIFACTS.get(artifactKey(fileId), { onlyIf: { etagMatches: head.etag } });
      if (!object || !("body" in object)) throw notFound();
      yield* fileItems(object.body);
    },
  };
}

/** Each line's item; lines that are none are refused together once the file has been read to its end. */
async function* fileItems(bytes: ReadableStream<Uint8Array>): AsyncGenerator<BatchItemInput> {
  const errors: FieldError[] = [];
  let items = 0;
  let line = 0;
  let lines: ReadableStream<string>;
  try {
    lines = linesOf(bytes);
  } catch {
    throw notText();
  }
  const reader = lines.getReader();
  try {
    for (;;) {
      let next: ReadableStreamReadResult<string>;
      try {
        next = await reader.read();
      } catch {
        throw notText();
      }
      if (next.done) break;
      const text = next.value;
      line++;
      if (text.trim() === "") continue;
      if (items + errors.length >= MAX_FILE_ITEMS) {
        throw new ApiError(
          "invalid_request",
          `An input file may hold at most ${MAX_FILE_ITEMS} items; line ${line} is one more.`,
          {
            param: "/input_file_id",
            details: { line, max_items: MAX_FILE_ITEMS, errors: [{ loc: ["input_file", line], reason: "one line too many" }] },
          },
        );
      }
      const bad = (reason: string, at: (string | number)[] = []) =>
        errors.push({ loc: ["input_file", line, ...at], reason, line } as FieldError);
      if (utf8Length(text) > MAX_LINE_BYTES) {
        bad(`the line is longer than ${MAX_LINE_BYTES} bytes`);
        continue;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        bad("the line is not valid JSON");
        continue;
      }
      const p = parsed as { custom_id?: unknown; body?: unknown };
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        bad("the line must be a JSON object {custom_id, body}");
        continue;
      }
      const extra = Object.keys(p).filter((k) => k !== "custom_id" && k !== "body");
      if (extra.length > 0) {
        bad(`unknown field '${extra[0]}'`, [extra[0] as string]);
        continue;
      }
      items++;
      yield { custom_id: p.custom_id, body: p.body, place: { kind: "line", line } };
    }
  } finally {
    // A consumer that stops early (a refusal) lets go of the rest of the file.
    await reader.cancel().catch(() => undefined);
  }
  if (errors.length > 0) {
    const first = errors[0] as FieldError & { line: number };
    throw new ApiError(
      "invalid_request",
      `${errors.length} lines of the input file are invalid; line ${first.line}: ${clause(first.reason)}.`,
      {
        param: "/input_file_id",
        details: { errors: errors.slice(0, MAX_LISTED), invalid_items: errors.length, line: first.line },
      },
    );
  }
  if (items === 0) {
    throw new ApiError("invalid_request", "The input file holds no items.", {
      param: "/input_file_id",
      details: { errors: [{ loc: ["input_file"], reason: "no line holds an item" }] },
    });
  }
}

function notText(): ApiError {
  return new ApiError("invalid_request", "The input file is not UTF-8 text.", {
    param: "/input_file_id",
    details: { errors: [{ loc: ["input_file"], reason: "a JSON lines file must be UTF-8 text" }] },
  });
}
