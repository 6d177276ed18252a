/**
 * Talking to fal: the `Key` credential, the queue host, and the reading of fal's two error
 * formats for `call`:
 *  - model errors: `{detail: [{loc, msg, type, url?, ctx?, input?}]}` with an optional
 *    `X-Fal-Retryable: true|false` header (docs "Model Errors");
 *  - request (infrastructure) errors: `{detail: "…", error_type: "…"}`, the type repeated in the
 *    `X-Fal-Error-Type` header (docs "Request Error Types").
 * Some endpoints have not migrated yet and answer `{detail: "…"}` or plain text.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { type Described, verifyWithRead } from "../http";

export const FAL_QUEUE_URL = "https://queue.fal.run";

export function authHeaders(config: ProviderConfig): Record<string, string> {
  return { Authorization: `Key ${config.apiKey}`, Accept: "application/json" };
}

interface ModelErrorItem {
  loc?: unknown;
  msg?: unknown;
  type?: unknown;
}

interface FalErrorBody {
  detail?: unknown;
  error_type?: unknown;
  error?: unknown;
  message?: unknown;
}

/** fal's documented refusal of an input on content policy (`type: content_policy_violation`, status 422). */
const SAFETY_TYPES = new Set(["content_policy_violation"]);
/** The wording, for endpoints still on the old format (a bare `detail` string). */
const SAFETY_WORDING =
  /content[ _-]?policy|flagged by (?:a|the|our)?\s*(?:content|safety)|content checker|nsfw content|safety (?:system|filter|checker) (?:rejected|blocked|flagged)/i;

/** Infrastructure error types (docs "Request Error Types") and what they mean for a caller. */
const ERROR_TYPES: Record<string, { code: ErrorCode; retryable: boolean }> = {
  request_timeout: { code: "model_timeout", retryable: true },
  startup_timeout: { code: "model_timeout", retryable: true },
  runner_scheduling_failure: { code: "model_unavailable", retryable: true },
  runner_connection_timeout: { code: "model_unavailable", retryable: true },
  runner_disconnected: { code: "model_unavailable", retryable: true },
  runner_connection_refused: { code: "model_unavailable", retryable: true },
  runner_connection_error: { code: "model_unavailable", retryable: true },
  runner_incomplete_response: { code: "model_request_failed", retryable: true },
  runner_server_error: { code: "model_request_failed", retryable: true },
  internal_error: { code: "model_request_failed", retryable: true },
  // 499s: the request was cancelled or its caller went away; repeating the read changes nothing.
  client_disconnected: { code: "model_request_failed", retryable: false },
  client_cancelled: { code: "model_request_failed", retryable: false },
  bad_request: { code: "model_request_failed", retryable: false },
};

/** The code for an `error_type` a status answer or webhook carries, when fal names one. */
export function codeForErrorType(errorType: unknown): { code: ErrorCode; retryable: boolean } | undefined {
  return typeof errorType === "string" && Object.hasOwn(ERROR_TYPES, errorType) ? ERROR_TYPES[errorType] : undefined;
}

export function parseBody(text: string): FalErrorBody | null {
  try {
    const body = JSON.parse(text) as unknown;
    return body && typeof body === "object" && !Array.isArray(body) ? (body as FalErrorBody) : null;
  } catch {
    return null;
  }
}

function items(detail: unknown): ModelErrorItem[] {
  return Array.isArray(detail) ? detail.filter((d): d is ModelErrorItem => !!d && typeof d === "object") : [];
}

/** The human part of an error: `msg`s with the field they are about; never the echoed `input` (it may carry URLs). */
function wording(body: FalErrorBody | null, text: string): string {
  if (!body) return text.slice(0, 500);
  if (typeof body.detail === "string") return body.detail;
  const list = items(body.detail);
  if (list.length > 0) {
    return list
      .map((d) => {
        const msg = typeof d.msg === "string" ? d.msg : typeof d.type === "string" ? d.type : "invalid input";
        const loc = Array.isArray(d.loc) ? d.loc.filter((l) => l !== "body").join(".") : "";
        return loc ? `${loc}: ${msg}` : msg;
      })
      .join("; ");
  }
  if (typeof body.error === "string") return body.error;
  if (typeof body.message === "string") return body.message;
  return text.slice(0, 500);
}

/** Whether an error body or text is fal's content-policy refusal. */
export function isSafetyRefusal(body: FalErrorBody | null, message: string): boolean {
  if (items(body?.detail).some((d) => typeof d.type === "string" && SAFETY_TYPES.has(d.type))) return true;
  return SAFETY_WORDING.test(message);
}

function headerFlag(headers: Headers): boolean | undefined {
  // One version of the docs names the header X-Fal-Needs-Retry.
  const raw = (headers.get("x-fal-retryable") ?? headers.get("x-fal-needs-retry"))?.trim().toLowerCase();
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  return undefined;
}

/** Reads fal's error answer for `call`: safety refusals, infrastructure error types, and the retry advice. */
export function describeFal(status: number, text: string, headers: Headers): Described {
  const body = parseBody(text);
  const message = wording(body, text);
  const advice = headerFlag(headers);
  if ((status === 400 || status === 422) && isSafetyRefusal(body, message)) {
    return { message, code: "safety_rejected", retryable: false };
  }
  const errorType = typeof body?.error_type === "string" ? body.error_type : (headers.get("x-fal-error-type") ?? undefined);
  const known = codeForErrorType(errorType);
  const said = errorType && !message.includes(errorType) ? `${message} (${errorType})` : message;
  // A start deadline the caller set is final (fal marks it `X-Fal-Request-Timeout-Type: user`).
  if (status === 504 && headers.get("x-fal-request-timeout-type") === "user") {
    return { message: said, code: "model_timeout", retryable: false };
  }
  if (known) return { message: said, code: known.code, retryable: advice ?? known.retryable };
  return advice === undefined ? { message: said } : { message: said, retryable: advice };
}

/** fal's platform API, beside the queue host. */
export const FAL_API_URL = "https://api.fal.ai";

/**
 * The key checked against the platform API's unit prices (`GET /v1/models/pricing?endpoint_id=`),
 * documented "Authentication: Required": a key fal does not know is refused. Its model list
 * (`GET /v1/models`) would not do, being "Authentication: Optional": a bad key is served as
 * anonymous. A deployment that points fal at another host (a proxy) is asked there, on the same path.
 */
export async function verifyKey(config: ProviderConfig): Promise<void> {
  const base = config.baseUrl === FAL_QUEUE_URL ? FAL_API_URL : config.baseUrl;
  const path = `${base}/v1/models/pricing?endpoint_id=${encodeURIComponent(KEY_CHECK_ENDPOINT)}`;
  await verifyWithRead(config, authHeaders(config), path, describeFal);
}

/** Any public endpoint will do for the price read; this one is in the catalog. */
const KEY_CHECK_ENDPOINT = "fal-ai/flux-2-pro";
