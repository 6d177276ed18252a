/** Any failure as the spec's error envelope: one vocabulary for the router and the direct routes. */
import { HTTPException } from "hono/http-exception";
import { ApiError } from "../errors/api-error";

/** Framework refusals (content type, malformed body) in the spec's vocabulary. */
function fromHttpException(err: HTTPException): ApiError {
  if (err.status === 404) return new ApiError("not_found", err.message || "Not found.");
  if (err.status === 415) return unsupportedMediaType();
  return refused(err.message, ["body"]);
}

/** A body whose declared type is not the JSON the route accepts. */
export function unsupportedMediaType(): ApiError {
  return refused("the content type does not match what this route accepts (application/json)", ["header", "content-type"]);
}

function refused(reason: string, loc: string[]): ApiError {
  return new ApiError("invalid_request", `The request was refused: ${reason}.`, { details: { errors: [{ loc, reason }] } });
}

/** The public error a failure is answered with; anything unexpected is logged and answered as internal_error. */
export function toApiError(err: unknown, requestId: string | undefined): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException && err.status < 500) return fromHttpException(err);
  console.error(JSON.stringify({ level: "error", request_id: requestId, message: String(err), stack: (err as Error)?.stack }));
  return new ApiError("internal_error", "An unexpected error occurred; retry with the same request.");
}

/** The headers an error's answer carries (its own, and Retry-After when it has one). */
export function errorHeaders(error: ApiError): Record<string, string> {
  const headers: Record<string, string> = { ...(error.headers ?? {}) };
  if (error.retryAfter !== undefined) headers["Retry-After"] = String(Math.ceil(error.retryAfter));
  return headers;
}

/** The error envelope as a response. */
export function errorResponse(error: ApiError, requestId: string): Response {
  return Response.json({ error: error.toBody(requestId) }, { status: error.status, headers: errorHeaders(error) });
}
