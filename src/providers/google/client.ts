/**
 * Talking to the Gemini API (generativelanguage.googleapis.com): the `x-goog-api-key` credential,
 * paths under `/v1beta`, and the reading of its error bodies, which are google.rpc.Status objects:
 *   {error: {code: 429, message: "…", status: "RESOURCE_EXHAUSTED", details: [{"@type": "…RetryInfo", retryDelay: "37s"}, …]}}
 * Google says how long to wait in RetryInfo rather than in a Retry-After header; both are honoured.
 * An invalid key is answered 400 INVALID_ARGUMENT with ErrorInfo reason API_KEY_INVALID, which is
 * this deployment's credential being refused, not the request being wrong.
 */
import { toBase64 } from "../../lib/base64";
import type { ProviderContext } from "../adapter";
import type { Described } from "../http";
import { call, retryAfterMs, verifyWithRead } from "../http";
import { safeProviderMessage } from "../messages";
import { ProviderError } from "../types";

export const GOOGLE_BASE_URL = "https://generativelanguage.googleapis.com";
export const API_VERSION = "v1beta";

type Config = ProviderContext["config"];

export function authHeaders(config: Config): Record<string, string> {
  return { "x-goog-api-key": config.apiKey };
}

/** `models/{model}` for a route's upstream id, with or without the `models/` prefix. */
export function modelPath(model: string): string {
  const id = model.replace(/^\/+|\/+$/g, "").replace(/^models\//, "");
  return `/${API_VERSION}/models/${encodeURIComponent(id).replaceAll("%2F", "/")}`;
}

export interface GoogleStatus {
  code?: unknown;
  message?: unknown;
  status?: unknown;
  details?: unknown;
}

export function statusOf(text: string): GoogleStatus | null {
  try {
    const body = JSON.parse(text) as { error?: unknown } | unknown[];
    // streamGenerateContent without alt=sse answers a JSON array; an error then comes as its only element.
    const first = Array.isArray(body) ? (body[0] as { error?: unknown } | undefined) : body;
    const e = first?.error;
    return e && typeof e === "object" ? (e as GoogleStatus) : null;
  } catch {
    return null;
  }
}

function detailsOf(e: GoogleStatus | null): Record<string, unknown>[] {
  return Array.isArray(e?.details)
    ? (e.details as unknown[]).filter((d): d is Record<string, unknown> => !!d && typeof d === "object")
    : [];
}

/** google.protobuf.Duration in JSON ("37s", "1.5s", "0.250s") as milliseconds. */
export function durationMs(value: unknown): number | undefined {
  const m = typeof value === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(value.trim()) : null;
  return m ? Math.round(Number(m[1]) * 1000) : undefined;
}

/** RetryInfo.retryDelay of an error body, in milliseconds. */
export function retryDelayMs(e: GoogleStatus | null): number | undefined {
  for (const d of detailsOf(e)) {
    if (String(d["@type"] ?? "").endsWith("google.rpc.RetryInfo")) {
      const ms = durationMs(d.retryDelay);
      if (ms !== undefined) return ms;
    }
  }
  return undefined;
}

/** Whether the error is Google refusing the API key itself (ErrorInfo reason API_KEY_INVALID and its kin). */
export function keyRefused(e: GoogleStatus | null): boolean {
  for (const d of detailsOf(e)) {
    if (String(d["@type"] ?? "").endsWith("google.rpc.ErrorInfo")) {
      const reason = String(d.reason ?? "");
      if (/^API_KEY_(INVALID|EXPIRED|SERVICE_BLOCKED|HTTP_REFERRER_BLOCKED|IP_ADDRESS_BLOCKED)$/.test(reason)) return true;
    }
  }
  return typeof e?.message === "string" && /API key (not valid|expired)/i.test(e.message);
}

/** The status word ("RESOURCE_EXHAUSTED"), when the body has one. */
export function statusWord(e: GoogleStatus | null): string | undefined {
  return typeof e?.status === "string" && /^[A-Z_]{2,40}$/.test(e.status) ? e.status : undefined;
}

/** Reads Google's error body for `call`. */
export function describeGoogle(status: number, text: string, _headers?: Headers): Described {
  const e = statusOf(text);
  const said = typeof e?.message === "string" && e.message ? e.message : text.slice(0, 500);
  const word = statusWord(e);
  const message = [said, word && !said.includes(word) ? `(${word})` : ""].filter(Boolean).join(" ");
  // The deployment's key was refused: another route (or a fixed key) may serve.
  if (keyRefused(e)) return { message, code: "model_unavailable", retryable: true };
  // Billing not enabled, or the API not offered where this deployment calls from: this route cannot serve now.
  if (status === 400 && word === "FAILED_PRECONDITION") return { message, code: "model_unavailable", retryable: true };
  return { message };
}

/**
 * One call through the shared client, reading Google's errors; RetryInfo becomes the failure's
 * `retryAfterMs` when no Retry-After header said otherwise.
 */
export async function googleCall(config: Config, opts: Omit<Parameters<typeof call>[2], "describe">): Promise<Response> {
  let delay: number | undefined;
  const describe = (status: number, text: string, headers: Headers): Described => {
    delay = retryAfterMs(headers) ?? retryDelayMs(statusOf(text));
    return describeGoogle(status, text, headers);
  };
  try {
    return await call(config, authHeaders(config), { ...opts, describe });
  } catch (e) {
    if (e instanceof ProviderError && e.retryAfterMs === undefined && delay !== undefined) {
      throw new ProviderError(e.code, e.message, {
        retryable: e.retryable,
        retryAfterMs: delay,
        accepted: e.accepted,
        status: e.upstreamStatus,
        malformed: e.malformed,
      });
    }
    throw e;
  }
}

/**
 * The task engine schedules a retry from `ctx.now`, taken before the adapter started work; a
 * wait Google asked for counts from its answer. The time spent in between is added, so the next
 * attempt never comes early.
 */
export function waitFromStart(ctx: ProviderContext, e: unknown): unknown {
  if (!(e instanceof ProviderError) || e.retryAfterMs === undefined) return e;
  const spent = Math.max(0, Date.now() - ctx.now);
  return new ProviderError(e.code, e.message, {
    retryable: e.retryable,
    retryAfterMs: e.retryAfterMs + spent,
    accepted: e.accepted,
    status: e.upstreamStatus,
    malformed: e.malformed,
  });
}

/**
 * How long a generation may take. Image and understanding calls can work for minutes, so the
 * default timeout is raised for them unless the deployment set PROVIDER_GOOGLE_TIMEOUT_MS itself.
 */
export function timeoutFor(config: Config, atLeastMs: number): number {
  return config.extra.timeout_ms ? config.timeoutMs : Math.max(config.timeoutMs, atLeastMs);
}

export interface Answer {
  bytes: Uint8Array;
  /** Google's `responseId`, when the answer has one. */
  requestId: string | null;
}

/**
 * One synchronous generateContent, never repeated here (a repeat could be billed twice). An error
 * status throws ProviderError with accepted "no". Once the status is 2xx the job has run: a body
 * that breaks off is reported with accepted "unknown".
 */
export async function generateOnce(ctx: ProviderContext, model: string, body: unknown, timeoutMs: number): Promise<Answer> {
  const config = ctx.config;
  let res: Response;
  try {
    res = await googleCall(config, {
      method: "POST",
      path: `${modelPath(model)}:generateContent`,
      json: body,
      timeoutMs,
      retries: 0,
    });
  } catch (e) {
    throw waitFromStart(ctx, e);
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw new ProviderError(
      "model_request_failed",
      `${config.name} accepted the request but its answer broke off: ${safeProviderMessage(e instanceof Error ? e.message : String(e), [config.apiKey], 300)}`,
      { retryable: true, accepted: "unknown" },
    );
  }
  let requestId: string | null = null;
  try {
    const id = (JSON.parse(new TextDecoder().decode(bytes)) as { responseId?: unknown }).responseId;
    if (typeof id === "string" && /^[A-Za-z0-9_-]{1,128}$/.test(id)) requestId = id;
  } catch {}
  return { bytes, requestId };
}

/** Strict base64 (standard or URL-safe alphabet); throws on anything else. */
export function fromBase64(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "").replaceAll("-", "+").replaceAll("_", "/");
  if (clean.length === 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) throw new Error("not base64");
  const binary = atob(clean);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export { toBase64 };

/** The cheapest authenticated call: the model list (`GET /v1beta/models`). */
export async function verifyKey(config: Config): Promise<void> {
  await verifyWithRead(config, authHeaders(config), "/v1beta/models?pageSize=1", describeGoogle);
}
