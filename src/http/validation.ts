import type { z } from "zod";
import { ApiError, type FieldError } from "../errors/api-error";
import { toJsonPointer } from "../lib/json-pointer";

export type RequestPart = "body" | "query" | "path" | "header";

/** Turns zod issues into `details.errors`, and points `param` at the first failure. */
export function validationError(part: RequestPart, issues: readonly z.core.$ZodIssue[]): ApiError {
  const errors: FieldError[] = issues.map((issue) => ({
    loc: [part, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
    reason: issue.message,
    code: issue.code,
  }));
  const first = issues[0];
  const where = first && first.path.length > 0 ? toJsonPointer(first.path) : "";
  const message = first
    ? `${part === "body" ? "Request body" : `Request ${part}`} is invalid${where ? ` at ${where}` : ""}: ${first.message}`
    : `Request ${part} is invalid`;
  return new ApiError("invalid_request", message, {
    // `param` points into the body; query and path failures name the parameter the same way.
    param: first ? where || (part === "body" ? "" : undefined) : undefined,
    details: { errors },
  });
}
