/**
 * The body of every state-changing console request, read and parsed once by the router (before
 * the CSRF check, which reads `_csrf` from it) and handed to pages through `formField`,
 * `formFields` and `formFiles`. A body the console cannot read is refused here with the API's
 * vocabulary, never a 500:
 * - over its cap (declared or counted): 413 `media_too_large`;
 * - a content type other than a form (`application/x-www-form-urlencoded`,
 *   `multipart/form-data`), multipart without a boundary, or a form that does not parse:
 *   422 `invalid_request`.
 * An empty body is an empty form, whatever its type (a script's bare POST with `X-CSRF-Token`).
 */
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../errors/api-error";
import { readAtMost, TooLarge } from "../lib/streams";
import { MAX_UPLOAD_BYTES } from "../services/media";
import type { ConsoleEnv } from "./context";

/** Far more than any console form of fields needs. */
export const FORM_MAX_BYTES = 64 * 1024;
/** Forms that carry files (the new-task form's inputs): one upload's cap plus room for the fields. */
export const FILE_FORM_MAX_BYTES = MAX_UPLOAD_BYTES + 1024 * 1024;
/** The console paths whose forms carry files. */
export const FILE_FORM_PATHS = new Set(["/console/tasks/new"]);

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const URLENCODED = /^application\/x-www-form-urlencoded\s*(;|$)/i;
const MULTIPART = /^multipart\/form-data\s*(;|$)/i;
const BOUNDARY = /;\s*boundary=("?)[^";]{1,70}\1\s*(;|$)/i;

function refused(reason: string, loc: string[] = ["body"]): ApiError {
  return new ApiError("invalid_request", `The form was refused: ${reason}.`, {
    details: { errors: [{ loc, reason }] },
  });
}

function tooLarge(cap: number): ApiError {
  return new ApiError("media_too_large", `The form exceeds ${cap} bytes.`, { param: "", details: { limit_bytes: cap } });
}

export function formCap(path: string): number {
  return FILE_FORM_PATHS.has(path) ? FILE_FORM_MAX_BYTES : FORM_MAX_BYTES;
}

async function parse(c: Context<ConsoleEnv>): Promise<FormData> {
  const cap = formCap(c.req.path);
  const declared = c.req.header("Content-Length");
  if (declared !== undefined && /^\d{1,15}$/.test(declared.trim()) && Number(declared) > cap) throw tooLarge(cap);
  let bytes: Uint8Array;
  try {
    bytes = await readAtMost(c.req.raw.body, cap);
  } catch (e) {
    if (e instanceof TooLarge) throw tooLarge(cap);
    throw refused("the body could not be read to its end");
  }
  if (bytes.byteLength === 0) return new FormData();
  const type = c.req.header("Content-Type") ?? "";
  if (URLENCODED.test(type)) {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      throw refused("the form is not UTF-8 text");
    }
    const form = new FormData();
    for (const [k, v] of new URLSearchParams(text)) form.append(k, v);
    return form;
  }
  if (MULTIPART.test(type)) {
    if (!BOUNDARY.test(type)) throw refused("multipart/form-data needs a boundary parameter", ["header", "content-type"]);
    try {
      return await new Response(bytes, { headers: { "Content-Type": type } }).formData();
    } catch {
      throw refused("the body is not valid multipart/form-data for its boundary");
    }
  }
  throw refused(
    `expected application/x-www-form-urlencoded or multipart/form-data, got '${type.split(";")[0]?.trim() || "none"}'`,
    ["header", "content-type"],
  );
}

/** The router's middleware: parses the body of a state-changing request into `c.get("form")`. */
export const formBody: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  if (BODY_METHODS.has(c.req.method)) c.set("form", await parse(c));
  await next();
};

function formOf(c: Context<ConsoleEnv>): FormData {
  return c.get("form") ?? new FormData();
}

/** A text field of the posted form (its first value), or undefined. A file under that name is not text. */
export function formField(c: Context<ConsoleEnv>, name: string): string | undefined {
  const value = formOf(c).get(name);
  return typeof value === "string" ? value : undefined;
}

/** Every text value posted under `name`. */
export function formFields(c: Context<ConsoleEnv>, name: string): string[] {
  return formOf(c)
    .getAll(name)
    .filter((v): v is string => typeof v === "string");
}

/** Every non-empty file posted under `name` (a file input left empty posts an empty, nameless part). */
export function formFiles(c: Context<ConsoleEnv>, name: string): File[] {
  return formOf(c)
    .getAll(name)
    .filter((v): v is File => typeof v !== "string" && (v.size > 0 || v.name !== ""));
}
