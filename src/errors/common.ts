/** Errors raised the same way at several sites, each worded once here. */
import { ApiError } from "./api-error";

/** A key that is unknown, revoked or expired: the answer does not say which. */
export function invalidApiKey(): ApiError {
  return new ApiError("invalid_api_key", "The API key is not valid.");
}

export function invalidCursor(): ApiError {
  return new ApiError("invalid_cursor", "The cursor is malformed or belongs to another listing.", { param: "/cursor" });
}

/** The upstream connection broke before a (non-streamed) chat answer was read in full. */
export function modelConnectionBroke(): ApiError {
  return new ApiError("model_request_failed", "The connection to the model broke while it was answering.");
}
