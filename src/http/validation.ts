import type { z } from "zod";
import { ApiError, type FieldError } from "../errors/api-error";
import { toJsonPointer } from "../lib/json-pointer";
import { findForeignField } from "./foreign-fields";
import { describeIssue } from "./issue-wording";

export type RequestPart = "body" | "query" | "path" | "header";

export interface ValidationContext {
  /** The route's path pattern (e.g. `/v1/images/generations`), for hints that depend on the operation. */
  route?: string;
  /** What was validated, as received. */
  input?: unknown;
}

/** Turns zod issues into `details.errors`, and points `param` at the first failure. */
export function validationError(
  part: RequestPart,
  issues: readonly z.core.$ZodIssue[],
  context: ValidationContext = {},
): ApiError {
  const errors: FieldError[] = issues.map((issue) => ({
    loc: [part, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
    reason: describeIssue(issue, context.input),
    code: issue.code,
  }));
  const label = part === "body" ? "Request body" : `Request ${part}`;
  // A field another API uses in this place: the message names this API's field for it.
  const foreign = part === "body" ? findForeignField(context.route, issues, context.input) : undefined;
  if (foreign) {
    const { field, param, row } = foreign;
    const what = row.shape === "object" ? `'${field}' has another API's shape` : `'${field}' is not a field of this API`;
    return new ApiError("invalid_request", `${label} is invalid at ${param}: ${what}; ${row.hint}.`, {
      param,
      details: { errors, foreign_field: { param, use: row.use, ...(row.on ? { on: row.on } : {}) } },
    });
  }
  const first = issues[0];
  const where = first ? pointerOf(first) : "";
  const message = first
    ? `${label} is invalid${where ? ` at ${where}` : ""}: ${errors[0]?.reason.replace(/\.$/, "")}.`
    : `${label} is invalid`;
  return new ApiError("invalid_request", message, {
    // `param` points into the body; query and path failures name the parameter the same way.
    param: first ? where || (part === "body" ? "" : undefined) : undefined,
    details: { errors },
  });
}

/** A body checked against its route's schema, refused as the router's validator refuses it (422, `param`). */
export function validBody<S extends z.ZodType>(schema: S, value: unknown, route: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError("body", parsed.error.issues, { route, input: value });
  return parsed.data;
}

/** The failing field; for unknown keys, the first unknown key rather than the object holding it. */
function pointerOf(issue: z.core.$ZodIssue): string {
  const path = issue.code === "unrecognized_keys" && issue.keys[0] !== undefined ? [...issue.path, issue.keys[0]] : issue.path;
  return path.length > 0 ? toJsonPointer(path) : "";
}
