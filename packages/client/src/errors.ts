/**
 * What the client throws. Every error response of the API is a `MediaApiError` carrying the
 * error object as the server sent it (`{code, type, message, retryable, param?, details?,
 * request_id}`); a response that is not the API's envelope (a proxy's page, a dropped
 * connection) is described in the same shape so that callers branch on one thing: `code`.
 */
import type { components } from "./generated/openapi.js";

export type ErrorObject = components["schemas"]["ErrorEnvelope"]["error"];

export class MediaApiError extends Error {
  override readonly name: string = "MediaApiError";
  /** HTTP status of the response (0 when no response arrived). */
  readonly status: number;
  readonly code: string;
  readonly type: string;
  readonly retryable: boolean;
  /** JSON Pointer to the offending request field, when the server named one. */
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly requestId: string | undefined;
  /** The whole error object. */
  readonly error: ErrorObject;
  /** From `Retry-After`, when the response carried one. */
  readonly retryAfterMs: number | undefined;
  readonly headers: Headers | undefined;

  constructor(status: number, error: ErrorObject, init: { retryAfterMs?: number; headers?: Headers; cause?: unknown } = {}) {
    super(`${error.message} (${error.code}${status ? `, HTTP ${status}` : ""})`, init.cause ? { cause: init.cause } : {});
    this.status = status;
    this.code = error.code;
    this.type = error.type;
    this.retryable = error.retryable;
    this.param = error.param;
    this.details = error.details;
    this.requestId = error.request_id || undefined;
    this.error = error;
    this.retryAfterMs = init.retryAfterMs;
    this.headers = init.headers;
  }
}

/** No response arrived (refused, reset, timed out) after the retries allowed. */
export class MediaConnectionError extends MediaApiError {
  override readonly name: string = "MediaConnectionError";
  constructor(message: string, cause?: unknown) {
    super(0, { code: "connection_error", type: "connection_error", message, retryable: true, request_id: "" }, { cause });
  }
}

/** `wait()` gave up before the task ended; the task itself goes on. */
export class MediaTimeoutError extends MediaApiError {
  override readonly name: string = "MediaTimeoutError";
  readonly taskId: string;
  constructor(taskId: string, ms: number) {
    super(0, {
      code: "wait_timeout",
      type: "timeout_error",
      message: `Task ${taskId} did not end within ${Math.round(ms / 1000)} s; it goes on (wait again or cancel it).`,
      retryable: true,
      request_id: "",
    });
    this.taskId = taskId;
  }
}

/** The error object of a failed response; a body that is not the API's envelope is described as one. */
export function errorObjectOf(status: number, body: string, headers: Headers): ErrorObject {
  try {
    const parsed = JSON.parse(body) as { error?: Partial<ErrorObject> };
    const e = parsed?.error;
    if (e && typeof e.code === "string" && typeof e.message === "string") {
      return {
        ...e,
        code: e.code,
        message: e.message,
        type: typeof e.type === "string" ? e.type : "api_error",
        retryable: typeof e.retryable === "boolean" ? e.retryable : defaultRetryable(status),
        request_id: typeof e.request_id === "string" ? e.request_id : (headers.get("x-request-id") ?? ""),
      } as ErrorObject;
    }
  } catch {
    // not JSON: described below
  }
  const text = body.replace(/\s+/g, " ").trim().slice(0, 200);
  return {
    code: `http_${status}`,
    type: "api_error",
    message: `HTTP ${status}${text ? `: ${text}` : ""}`,
    retryable: defaultRetryable(status),
    request_id: headers.get("x-request-id") ?? "",
  };
}

/** Without the API's word on it: 408, 429 and 5xx other than 501 are worth another try. */
function defaultRetryable(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501);
}
