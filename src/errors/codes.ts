/**
 * Every error code of the public contract, with its HTTP status, family and retry flag.
 * This table mirrors the spec's error table one row per code; nothing else decides a status.
 */
export type ErrorType =
  | "authentication_error"
  | "permission_error"
  | "invalid_request_error"
  | "billing_error"
  | "model_error"
  | "media_error"
  | "not_found_error"
  | "conflict_error"
  | "rate_limit_error"
  | "safety_error"
  | "delivery_error"
  | "service_error";

interface CodeInfo {
  readonly status: number;
  readonly type: ErrorType;
  readonly retryable: boolean;
  readonly condition: string;
}

export const ERROR_CODES = {
  unauthorized: { status: 401, type: "authentication_error", retryable: false, condition: "missing or malformed credentials" },
  invalid_api_key: {
    status: 401,
    type: "authentication_error",
    retryable: false,
    condition: "key invalid, disabled, revoked or unknown",
  },
  api_key_region_mismatch: {
    status: 400,
    type: "authentication_error",
    retryable: false,
    condition: "key region does not match the endpoint",
  },
  tenant_disabled: { status: 403, type: "permission_error", retryable: false, condition: "tenant suspended or disabled" },
  forbidden: { status: 403, type: "permission_error", retryable: false, condition: "caller lacks permission" },
  email_send_failed: { status: 502, type: "service_error", retryable: true, condition: "login-code email send failed" },
  insufficient_balance: {
    status: 402,
    type: "billing_error",
    retryable: false,
    condition: "not enough credits; request not started; nothing charged",
  },
  billing_failed: { status: 500, type: "billing_error", retryable: true, condition: "charge or refund failed after retries" },
  payment_provider_unavailable: {
    status: 503,
    type: "billing_error",
    retryable: false,
    condition: "payment provider not configured for the method",
  },
  invalid_request: { status: 422, type: "invalid_request_error", retryable: false, condition: "structural validation failure" },
  skill_package_format_invalid: {
    status: 422,
    type: "invalid_request_error",
    retryable: false,
    condition: "skill package identity malformed",
  },
  unsupported_capability: {
    status: 400,
    type: "invalid_request_error",
    retryable: false,
    condition: "capability missing or disabled",
  },
  unsupported_model: {
    status: 400,
    type: "invalid_request_error",
    retryable: false,
    condition: "model missing or not selectable for the capability",
  },
  unsupported_option: {
    status: 422,
    type: "invalid_request_error",
    retryable: false,
    condition: "a concrete model does not support a value or control",
  },
  no_eligible_model: {
    status: 422,
    type: "invalid_request_error",
    retryable: false,
    condition: "no live model can honor the full auto request",
  },
  voice_model_incompatible: {
    status: 422,
    type: "invalid_request_error",
    retryable: false,
    condition: "voice does not resolve on the model",
  },
  unsupported_input_modality: {
    status: 422,
    type: "invalid_request_error",
    retryable: false,
    condition: "model does not support an input modality in the request",
  },
  context_length_exceeded: {
    status: 422,
    type: "invalid_request_error",
    retryable: false,
    condition: "request exceeds the context window",
  },
  safety_rejected: { status: 400, type: "safety_error", retryable: false, condition: "failed content safety review" },
  content_filtered: {
    status: 502,
    type: "safety_error",
    retryable: false,
    condition: "a safety filter blocked the output mid-generation",
  },
  not_found: { status: 404, type: "not_found_error", retryable: false, condition: "HTTP resource or endpoint not found" },
  streaming_not_yet_implemented: {
    status: 501,
    type: "invalid_request_error",
    retryable: false,
    condition: "legacy: stream recognized but not enabled",
  },
  invalid_window: { status: 422, type: "invalid_request_error", retryable: false, condition: "time range invalid" },
  invalid_cursor: { status: 400, type: "invalid_request_error", retryable: false, condition: "pagination cursor malformed" },
  callback_url_required: {
    status: 422,
    type: "invalid_request_error",
    retryable: false,
    condition: "signing key chosen without callback_url",
  },
  callback_signing_key_not_found: {
    status: 404,
    type: "not_found_error",
    retryable: false,
    condition: "signing key unknown or not visible",
  },
  callback_signing_key_inactive: {
    status: 422,
    type: "invalid_request_error",
    retryable: false,
    condition: "signing key retired",
  },
  invalid_media: { status: 422, type: "media_error", retryable: false, condition: "media malformed or undecodable" },
  unsupported_media_type: {
    status: 422,
    type: "media_error",
    retryable: false,
    condition: "media type unsupported for the capability",
  },
  media_too_large: { status: 413, type: "media_error", retryable: false, condition: "media exceeds the allowed size" },
  media_fetch_failed: { status: 422, type: "media_error", retryable: true, condition: "an input resource could not be fetched" },
  task_not_found: {
    status: 404,
    type: "not_found_error",
    retryable: false,
    condition: "task does not exist or is not the caller's",
  },
  conflict: { status: 409, type: "conflict_error", retryable: false, condition: "operation conflicts with state" },
  result_undeliverable: {
    status: 502,
    type: "delivery_error",
    retryable: false,
    condition: "completed result too large, too deeply nested or not valid JSON",
  },
  artifact_not_found: {
    status: 404,
    type: "not_found_error",
    retryable: false,
    condition: "artifact id unknown or not the caller's",
  },
  voice_not_found: { status: 404, type: "not_found_error", retryable: false, condition: "voice id unknown or not the caller's" },
  idempotency_conflict: {
    status: 409,
    type: "conflict_error",
    retryable: false,
    condition: "same Idempotency-Key with a different body",
  },
  request_in_progress: {
    status: 409,
    type: "conflict_error",
    retryable: true,
    condition: "same identity matches an in-flight request",
  },
  rate_limited: { status: 429, type: "rate_limit_error", retryable: true, condition: "caller rate limit exceeded" },
  model_unavailable: { status: 503, type: "model_error", retryable: true, condition: "requested model not available" },
  model_request_failed: {
    status: 502,
    type: "model_error",
    retryable: true,
    condition: "model request failed after retryable errors",
  },
  model_timeout: { status: 504, type: "model_error", retryable: true, condition: "model request timed out" },
  model_rate_limited: { status: 429, type: "model_error", retryable: true, condition: "model capacity rate-limited" },
  model_output_invalid: {
    status: 502,
    type: "model_error",
    retryable: true,
    condition: "artifact could not be downloaded after 3 attempts",
  },
  internal_error: { status: 500, type: "service_error", retryable: true, condition: "unclassified server error" },
  // Tool-only (spec, Errors rule 8): the tool protocol's answer to a grant or key lacking a tool's scope.
  insufficient_scope: {
    status: 403,
    type: "permission_error",
    retryable: false,
    condition: "tool-only: the grant lacks a scope the tool needs",
  },
} as const satisfies Record<string, CodeInfo>;

/** Codes the spec names outside its table: they belong to the tool protocol (/mcp) only. */
export const TOOL_ONLY_CODES: ReadonlySet<string> = new Set(["insufficient_scope"]);

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
