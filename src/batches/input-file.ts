/**
 * A batch's items from an upload of JSON lines: one `{custom_id, body}` per line (blank lines are
 * passed over), at most 10,000 lines and 100 MiB. A line that is not such an object refuses the
 * batch with its line number (1-based), as an invalid item's body does.
 */
import type { Env } from "../env";
import { ApiError, type FieldError } from "../errors/api-error";
import { clause } from "../lib/sentence";
import { artifactKey } from "../media/artifacts";
import { artifactInScope } from "../tasks/artifact-scope";
import type { TaskScope } from "../tasks/scope";
import { type BatchItemInput, MAX_FILE_ITEMS } from "./admit-batch";

export const MAX_INPUT_FILE_BYTES = 100 * 1024 * 1024;
const MAX_LISTED = 100;

export async function readInputFile(env: Env, scope: TaskScope, fileId: string): Promise<BatchItemInput[]> {
  const head = await artifactInScope(env, fileId, scope);
  if (!head) throw new ApiError("artifact_not_found", `Artifact '${fileId}' does not exist.`, { param: "/input_file_id" });
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
  const object = await env.ARTIFACTS.get(artifactKey(fileId));
  if (!object) throw new ApiError("artifact_not_found", `Artifact '${fileId}' does not exist.`, { param: "/input_file_id" });
  const lines = (await object.text()).split("\n");
  const items: BatchItemInput[] = [];
  const errors: FieldError[] = [];
  for (const [i, text] of lines.entries()) {
    const line = i + 1;
    if (text.trim() === "") continue;
    if (items.length + errors.length >= MAX_FILE_ITEMS) {
      throw new ApiError("invalid_request", `An input file may hold at most ${MAX_FILE_ITEMS} items; line ${line} is one more.`, {
        param: "/input_file_id",
        details: { line, max_items: MAX_FILE_ITEMS, errors: [{ loc: ["input_file", line], reason: "one line too many" }] },
      });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      errors.push({ loc: ["input_file", line], reason: "the line is not valid JSON", line } as FieldError);
      continue;
    }
    const p = parsed as { custom_id?: unknown; body?: unknown };
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      errors.push({ loc: ["input_file", line], reason: "the line must be a JSON object {custom_id, body}", line } as FieldError);
      continue;
    }
    const extra = Object.keys(p).filter((k) => k !== "custom_id" && k !== "body");
    if (extra.length > 0) {
      errors.push({ loc: ["input_file", line, extra[0] as string], reason: `unknown field '${extra[0]}'`, line } as FieldError);
      continue;
    }
    items.push({ custom_id: p.custom_id, body: p.body, place: { kind: "line", line } });
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
  if (items.length === 0) {
    throw new ApiError("invalid_request", "The input file holds no items.", {
      param: "/input_file_id",
      details: { errors: [{ loc: ["input_file"], reason: "no line holds an item" }] },
    });
  }
  return items;
}
