/**
 * Talking to Kie (api.kie.ai), a relay for Suno: Bearer credentials, and the reading of Kie's
 * answers. Kie wraps every answer as `{code, msg, data}` and documents its failures as that
 * `code` (docs.kie.ai Suno API "Generate Music" / "Get Music Task Details", and the common
 * status table): 400 invalid parameters, 401 unauthorized, 402 insufficient credits, 404 not
 * found, 405 / 429 / 430 rate limits, 413 prompt too long, 422 validation, 455 maintenance,
 * 500 server error, 501 generation failed, 505 feature disabled. A refusal may come as that HTTP
 * status or as an HTTP 200 whose body carries the code: both are read the same way here.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { type Described, verifyWithRead } from "../http";
import { safeProviderMessage } from "../messages";
import { type KeyCheck, ProviderError } from "../types";

export const KIE_BASE_URL = "https://api.kie.ai";

export function authHeaders(config: ProviderConfig): Record<string, string> {
  return { Authorization: `Bearer ${config.apiKey}`, Accept: "application/json" };
}

/** Provider words made safe to show: no key, no signed URLs, bounded. */
export function safeWording(config: ProviderConfig, text: string, max = 400): string {
  return safeProviderMessage(text, [config.apiKey], max);
}

/** Kie's (and Suno's) words for a refusal on content grounds. */
const SAFETY_WORDING =
  /sensitive[ _-]?word|sensitive content|content[ _-]polic|prohibited content|moderat(?:ion|ed)|violat(?:es|ion|ing)|artist name/i;

export function soundsLikeSafety(text: string): boolean {
  return SAFETY_WORDING.test(text);
}

/** Credits wording: some Suno relays answer 429 for an empty balance, so the words decide. */
const CREDITS_WORDING = /credit|balance|insufficient|top[ -]?up|recharge/i;

export interface KieEnvelope {
  code?: unknown;
  msg?: unknown;
  message?: unknown;
  data?: unknown;
}

export function parseEnvelope(text: string): KieEnvelope | null {
  try {
    const body = JSON.parse(text) as unknown;
    return body && typeof body === "object" && !Array.isArray(body) ? (body as KieEnvelope) : null;
  } catch {
    return null;
  }
}

/** The numeric code of an envelope (Kie sends a number; a numeric string is read too). */
export function codeOf(body: KieEnvelope | null): number | undefined {
  const c = body?.code;
  const n = typeof c === "number" ? c : typeof c === "string" && /^\d{3}$/.test(c) ? Number(c) : Number.NaN;
  return Number.isInteger(n) ? n : undefined;
}

export function messageOf(body: KieEnvelope | null, fallback: string): string {
  if (typeof body?.msg === "string" && body.msg.trim()) return body.msg.trim();
  if (typeof body?.message === "string" && body.message.trim()) return body.message.trim();
  return fallback.slice(0, 500);
}

/** A Kie failure code in the service's vocabulary. */
export function mapKieCode(code: number, message: string): { code: ErrorCode; retryable: boolean } {
  switch (code) {
    case 400:
    case 413:
    case 422:
      // Suno's sensitive-word refusal of the prompt or lyrics can arrive as a parameter error.
      return soundsLikeSafety(message)
        ? { code: "safety_rejected", retryable: false }
        : { code: "model_request_failed", retryable: false };
    case 401:
    case 403:
      // This deployment's key was refused: another route may serve.
      return { code: "model_unavailable", retryable: true };
    case 402:
      // The account behind the key is out of credits: another route (or a top-up) may serve.
      return { code: "model_unavailable", retryable: true };
    case 429:
      return CREDITS_WORDING.test(message)
        ? { code: "model_unavailable", retryable: true }
        : { code: "model_rate_limited", retryable: true };
    case 405:
    case 430:
      return { code: "model_rate_limited", retryable: true };
    case 455:
    case 503:
    case 505:
      // Maintenance, or the feature switched off on Kie's side.
      return { code: "model_unavailable", retryable: true };
    case 408:
    case 504:
      return { code: "model_timeout", retryable: true };
    default:
      // 500 server error, 501 generation failed, and codes Kie has not documented.
      return { code: "model_request_failed", retryable: code >= 500 };
  }
}

/** `call`'s reading of an HTTP error answer: the body's code when there is one, else the HTTP status. */
export function describeKie(status: number, text: string): Described {
  const body = parseEnvelope(text);
  const message = messageOf(body, text);
  const mapped = mapKieCode(codeOf(body) ?? status, message);
  return { message, code: mapped.code, retryable: mapped.retryable };
}

/** An HTTP 200 whose envelope carries a failure code: the same refusal as an HTTP error. */
export function envelopeFailure(
  config: ProviderConfig,
  body: KieEnvelope,
  code: number,
  headers: Headers,
  what: string,
): ProviderError {
  const message = messageOf(body, "no message");
  const mapped = mapKieCode(code, message);
  const after = Number(headers.get("retry-after"));
  return new ProviderError(mapped.code, `${config.name} refused the ${what} (code ${code}): ${safeWording(config, message)}`, {
    retryable: mapped.retryable,
    accepted: "no",
    status: code,
    ...(headers.has("retry-after") && Number.isFinite(after) && after >= 0 ? { retryAfterMs: after * 1000 } : {}),
  });
}

/** A valid key whose account has no credit: stored, with this said (its tasks are refused until a top-up). */
function noCredit(config: ProviderConfig, said: string): KeyCheck {
  return {
    warning: {
      code: "provider_key_no_credit",
      message: `${config.name} accepted the key, but its account has no credit left (${said}): tasks on it are refused until it is topped up.`,
    },
  };
}

/**
 * The cheapest authenticated call: the account's remaining credits (`GET /api/v1/chat/credit`,
 * answered `{code: 200, msg, data: <credits>}`). kie may answer HTTP 200 with its own `code` (401:
 * the key is not valid), so the body decides too. Its 402 ("insufficient credits") comes after the
 * key was accepted: the key is valid, the account empty.
 */
export async function verifyKey(config: ProviderConfig): Promise<KeyCheck | undefined> {
  let res: Response;
  try {
    res = await verifyWithRead(config, authHeaders(config), "/api/v1/chat/credit", describeKie);
  } catch (e) {
    if (e instanceof ProviderError && e.upstreamStatus === 402) return noCredit(config, "code 402");
    throw e;
  }
  const body = (await res.json().catch(() => null)) as { code?: unknown; msg?: unknown; data?: unknown } | null;
  const code = codeOf(body);
  if (code === 402) return noCredit(config, safeWording(config, messageOf(body, "code 402"), 200));
  if (code !== undefined && code !== 200) {
    const said = safeWording(config, messageOf(body, `code ${code}`));
    throw new ProviderError("model_unavailable", `${config.name} answered ${code}: ${said}`, {
      status: code,
      keyFault: code === 401 || code === 403,
    });
  }
  if (typeof body?.data === "number" && body.data <= 0) return noCredit(config, `a balance of ${body.data}`);
  return undefined;
}
