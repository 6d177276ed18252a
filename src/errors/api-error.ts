import { ERROR_CODES, type ErrorCode, type ErrorType } from "./codes";
import { endOnce } from "./sentence";

/** One entry of `details.errors`: where the failure is and why. */
export interface FieldError {
  loc: (string | number)[];
  reason: string;
  code?: string;
}

export interface ErrorBody {
  code: ErrorCode;
  type: ErrorType;
  message: string;
  retryable: boolean;
  param?: string;
  details?: Record<string, unknown>;
  request_id: string;
}

export interface ApiErrorOptions {
  param?: string;
  details?: Record<string, unknown>;
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number;
  headers?: Record<string, string>;
}

/** An error that leaves the service as the spec's envelope. Throw it from anywhere. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  readonly retryAfter?: number;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(endOnce(message));
    this.name = "ApiError";
    this.code = code;
    this.param = options.param;
    this.details = options.details;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toBody(requestId: string): ErrorBody {
    const info = ERROR_CODES[this.code];
    return {
      code: this.code,
      type: info.type,
      message: this.message,
      retryable: info.retryable,
      ...(this.param !== undefined ? { param: this.param } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
      request_id: requestId,
    };
  }
}

/** The `{error: …}` body for a code, as plain data (used where no exception is thrown). */
export function errorEnvelope(error: ApiError, requestId: string): { error: ErrorBody } {
  return { error: error.toBody(requestId) };
}
