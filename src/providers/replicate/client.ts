/**
 * Replicate's HTTP API as this service calls it (replicate.com/docs/reference/http): the documented
 * base, `Authorization: Bearer <token>`, and a reading of its error bodies, which come as
 * problem+json (`{title, detail, status}`, with `invalid_fields` on a 422) or, when throttled, as
 * `{"detail": "Request was throttled. Expected available in 1 second."}`.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { type CallOptions, call, type Described, verifyWithRead } from "../http";
import { safeProviderMessage } from "../messages";
import { ProviderError } from "../types";

export const REPLICATE_BASE_URL = "https://api.replicate.com/v1";

export function authHeaders(config: ProviderConfig): Record<string, string> {
  return { Authorization: `Bearer ${config.apiKey}` };
}

/**
 * Upstream wording can quote URLs: the signed input URLs this service handed over, output URLs.
 * None of them is for the client's eyes, whatever their query looks like, so all are dropped.
 */
export function withoutUrls(text: string): string {
  return text.replace(/\b(?:https?:\/\/|data:)[^\s"'<>)\]]*/gi, "[url]");
}

/** Replicate's wording, made safe to show (no URLs, no token, bounded). */
export function safeWording(config: ProviderConfig, text: string, max = 600): string {
  return safeProviderMessage(withoutUrls(text), [config.apiKey], max);
}

// Replicate's content flag is E005, "The input or output was flagged as sensitive. Please try again
// with different inputs." It does not say which side; it asks for different inputs, so it counts
// as a refusal of the request. Models' own safety checkers word an output block as NSFW content detected.
const EITHER_SIDE = /\bE005\b|flagged as sensitive|input or output was flagged/i;
const OUTPUT_SIDE =
  /nsfw content (?:was )?detected|contained nsfw|(?:generated|output) (?:image|images|content|video) (?:was |were )?(?:flagged|filtered|blocked|contain)|output (?:was|were) (?:flagged|filtered|blocked)|content moderated/i;
const INPUT_SIDE =
  /(?:input|prompt|image|request) (?:was|were|is) (?:flagged|rejected|blocked)|request moderated|content policy|violat\w* (?:our |the )?(?:terms|policy|policies)|safety (?:system|filter|check\w*)/i;
const NSFW = /\bnsfw\b|unsafe content|sensitive content/i;

/**
 * The safety outcome some Replicate wording describes, or null. `started` says whether anything
 * could have been generated: a refusal before the model ran is always about the input.
 */
export function safetyCode(text: string, started = true): ErrorCode | null {
  if (EITHER_SIDE.test(text)) return "safety_rejected";
  if (OUTPUT_SIDE.test(text)) return started ? "content_filtered" : "safety_rejected";
  if (INPUT_SIDE.test(text)) return "safety_rejected";
  if (NSFW.test(text)) return started ? "content_filtered" : "safety_rejected";
  return null;
}

/** The words of an error body: `title: detail` of problem+json, the bare `detail`, or the text. */
function wording(text: string): string {
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {}
  if (!body || typeof body !== "object") return text.slice(0, 300);
  const title = typeof body.title === "string" ? body.title.trim() : "";
  let detail = typeof body.detail === "string" ? body.detail.trim() : "";
  if (!detail && Array.isArray(body.invalid_fields)) {
    detail = body.invalid_fields
      .map((f: any) => [f?.field, f?.description].filter((x) => typeof x === "string" && x).join(": "))
      .join("; ");
  }
  if (!detail && typeof body.error === "string") detail = body.error;
  if (title && detail) return `${title}: ${detail}`;
  return detail || title || text.slice(0, 300);
}

/**
 * Reads a Replicate error body. On a submission (`create`), a 404 means the configured model does
 * not exist on this account and a 402 that the account has no credit: this route is unusable, another
 * may serve. Safety wording in a 4xx answer is a refusal of the input.
 */
export function describeFor(operation: "create" | "read") {
  return (status: number, text: string): Described => {
    const message = withoutUrls(wording(text));
    if (status >= 400 && status < 500 && status !== 429 && safetyCode(message, false)) {
      return { message, code: "safety_rejected", retryable: false };
    }
    if (status === 402) return { message, code: "model_unavailable", retryable: true };
    if (status === 404 && operation === "create") return { message, code: "model_unavailable", retryable: true };
    return { message };
  };
}

export const describe = describeFor("read");

/**
 * The wait a throttle body announces ("Expected available in 1 second.", "resets in ~30s"), for
 * answers that come without a Retry-After header.
 */
export function throttleWaitMs(text: string): number | undefined {
  const m =
    /available in (\d+(?:\.\d+)?) ?(?:seconds?|s)\b/i.exec(text) ?? /resets in ~?(\d+(?:\.\d+)?) ?(?:seconds?|s)\b/i.exec(text);
  return m ? Math.ceil(Number(m[1]) * 1000) : undefined;
}

/** One Replicate call through the shared client, with the throttle wait read from the body when the header is missing. */
export async function replicateCall(
  config: ProviderConfig,
  opts: CallOptions & { operation?: "create" | "read" },
): Promise<Response> {
  const { operation = "read", ...rest } = opts;
  try {
    return await call(config, authHeaders(config), { describe: describeFor(operation), ...rest });
  } catch (e) {
    if (e instanceof ProviderError && e.code === "model_rate_limited" && e.retryAfterMs === undefined) {
      const wait = throttleWaitMs(e.message);
      if (wait !== undefined) {
        throw new ProviderError(e.code, e.message, {
          retryable: e.retryable,
          retryAfterMs: wait,
          accepted: e.accepted,
          status: e.upstreamStatus,
        });
      }
    }
    throw e;
  }
}

/** The cheapest authenticated call: the account the token belongs to (`GET /account`). */
export async function verifyKey(config: ProviderConfig): Promise<void> {
  await verifyWithRead(config, authHeaders(config), "/account", describeFor("read"));
}
