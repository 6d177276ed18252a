/**
 * Talking to OpenAI: the bearer credential (and the optional organization and project headers),
 * the reading of its error bodies `{error: {message, type, param, code}}`, and one synchronous
 * POST whose whole answer is read before anything else happens (the answer is the paid result).
 */

import type { ProviderContext } from "../adapter";
import type { Described } from "../http";
import { call, verifyWithRead } from "../http";
import { safeProviderMessage } from "../messages";
import { ProviderError } from "../types";

export const OPENAI_BASE_URL = "https://api.openai.com/v1";

type Config = ProviderContext["config"];

/** `PROVIDER_OPENAI_ORGANIZATION` / `PROVIDER_OPENAI_PROJECT` select the billing scope, as the official client's options do. */
export function authHeaders(config: Config): Record<string, string> {
  const headers: Record<string, string> = { Authorization: `Bearer ${config.apiKey}` };
  if (config.extra.organization) headers["OpenAI-Organization"] = config.extra.organization;
  if (config.extra.project) headers["OpenAI-Project"] = config.extra.project;
  return headers;
}

/**
 * The safety system's refusal. Image models answer 400 `moderation_blocked` (with
 * `moderation_details.moderation_stage` "input" or "output"); older image models used
 * `content_policy_violation`. The wording is the fallback when a proxy drops the code.
 */
const SAFETY_CODES = new Set(["moderation_blocked", "content_policy_violation"]);
const SAFETY_WORDING = /rejected (?:as a result of|by) (?:our|the) safety system/i;

interface OpenAIErrorBody {
  message?: unknown;
  type?: unknown;
  code?: unknown;
  param?: unknown;
  moderation_details?: { moderation_stage?: unknown };
}

function errorOf(text: string): OpenAIErrorBody | null {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return body && typeof body.error === "object" && body.error !== null ? (body.error as OpenAIErrorBody) : null;
  } catch {
    return null;
  }
}

/** Reads OpenAI's error body for `call`: safety refusals, quota exhaustion, and its `x-should-retry` advice. */
export function describeOpenAI(status: number, text: string, headers: Headers): Described {
  const error = errorOf(text);
  const code = typeof error?.code === "string" ? error.code : undefined;
  const type = typeof error?.type === "string" ? error.type : undefined;
  const said = typeof error?.message === "string" && error.message ? error.message : text.slice(0, 500);
  const message = [said, code && !said.includes(code) ? `(${code})` : ""].filter(Boolean).join(" ");
  if (status === 400 && ((code && SAFETY_CODES.has(code)) || SAFETY_WORDING.test(said))) {
    // A refusal of what the model produced is a filtered output; anything else refused the request.
    const stage = error?.moderation_details?.moderation_stage;
    return { message, code: stage === "output" ? "content_filtered" : "safety_rejected", retryable: false };
  }
  if (status === 429 && (code === "insufficient_quota" || type === "insufficient_quota")) {
    // The account is out of credit: waiting will not help this route, another route may serve.
    return { message, code: "model_unavailable", retryable: true, keyFault: true };
  }
  const advice = headers.get("x-should-retry");
  if (advice === "true" || advice === "false") return { message, retryable: advice === "true" };
  return { message };
}

/**
 * How long a generation may take. Image models can work for minutes, so the default timeout is
 * raised for them unless the deployment set PROVIDER_OPENAI_TIMEOUT_MS itself.
 */
export function timeoutFor(config: Config, atLeastMs: number): number {
  return config.extra.timeout_ms ? config.timeoutMs : Math.max(config.timeoutMs, atLeastMs);
}

export interface Answer {
  bytes: Uint8Array;
  contentType: string;
  /** OpenAI's `x-request-id`, when it sent one. */
  requestId: string | null;
}

/**
 * One synchronous call, never repeated here (a repeat could be billed twice upstream). An error
 * status throws ProviderError with accepted "no". Once the status is 2xx the job has run: a body
 * that breaks off is reported with accepted "unknown".
 */
export async function postOnce(
  ctx: ProviderContext,
  path: string,
  payload: { json: unknown } | { body: FormData },
  timeoutMs: number,
  accept?: string,
): Promise<Answer> {
  const config = ctx.config;
  const res = await call(config, authHeaders(config), {
    method: "POST",
    path,
    ...payload,
    ...(accept ? { headers: { Accept: accept } } : {}),
    timeoutMs,
    retries: 0,
    describe: describeOpenAI,
  });
  try {
    const bytes = new Uint8Array(await res.arrayBuffer());
    return {
      bytes,
      contentType: res.headers.get("content-type") ?? "application/octet-stream",
      requestId: res.headers.get("x-request-id"),
    };
  } catch (e) {
    throw new ProviderError(
      "model_request_failed",
      `${config.name} accepted the request but its answer broke off: ${safeProviderMessage(e instanceof Error ? e.message : String(e), [config.apiKey], 300)}`,
      { retryable: true, accepted: "unknown" },
    );
  }
}

/** The cheapest authenticated call: the model list (`GET /models`). */
export async function verifyKey(config: Config): Promise<void> {
  await verifyWithRead(config, authHeaders(config), "/models", describeOpenAI);
}
