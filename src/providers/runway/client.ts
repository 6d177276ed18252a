/**
 * Talking to Runway's developer API (docs.dev.runwayml.com; the official SDK runwayml/sdk-node):
 * `Authorization: Bearer <key>` and the API version header on every call, and the reading of
 * Runway's error answers for `call`.
 *
 * Runway's HTTP error table ("API Errors"): 400 a problem with an input, answered as JSON with an
 * `error` member explaining it; 401 a key that is not valid; 404 a resource that is not
 * available; 405 a wrong method; 429 too many requests or the integration's limits reached; 502
 * and 503 load shedding; 504 overloaded. 429 and 502–504 may be retried. The SDK also obeys an
 * `x-should-retry: true|false` header when Runway sends one, so it is obeyed here as well.
 */
import type { ProviderConfig } from "../config";
import { type Described, verifyWithRead } from "../http";
import { safeProviderMessage } from "../messages";

export const RUNWAY_BASE_URL = "https://api.dev.runwayml.com";
/** Runway refuses calls without it; 2024-11-06 is the version the SDK pins. */
export const RUNWAY_VERSION = "2024-11-06";

export function authHeaders(config: ProviderConfig): Record<string, string> {
  return { Authorization: `Bearer ${config.apiKey}`, "X-Runway-Version": RUNWAY_VERSION, Accept: "application/json" };
}

interface ErrorBody {
  error?: unknown;
  issues?: unknown;
  message?: unknown;
}

function parse(text: string): ErrorBody | null {
  try {
    const body = JSON.parse(text) as unknown;
    return body && typeof body === "object" && !Array.isArray(body) ? (body as ErrorBody) : null;
  } catch {
    return null;
  }
}

/** Per-field notes some 400 answers carry next to `error` (each naming the field it is about). */
function issues(body: ErrorBody): string[] {
  if (!Array.isArray(body.issues)) return [];
  return body.issues
    .filter((i): i is { path?: unknown; message?: unknown } => !!i && typeof i === "object")
    .map((i) => {
      const path = Array.isArray(i.path) ? i.path.filter((p) => typeof p === "string" || typeof p === "number").join(".") : "";
      const message = typeof i.message === "string" ? i.message : "invalid value";
      return path ? `${path}: ${message}` : message;
    })
    .slice(0, 5);
}

/** The human part of an error answer: Runway's `error` wording, with any per-field notes. */
export function wording(text: string): string {
  const body = parse(text);
  if (!body) return text.slice(0, 500);
  const main = typeof body.error === "string" ? body.error : typeof body.message === "string" ? body.message : "";
  const notes = issues(body);
  if (!main && notes.length === 0) return text.slice(0, 500);
  return notes.length > 0 ? `${main || "invalid request"} (${notes.join("; ")})` : main;
}

/** Reads Runway's error answer for `call`; `x-should-retry` overrides the status's own retry rule. */
export function describeRunway(_status: number, text: string, headers: Headers): Described {
  const message = wording(text);
  const hint = headers.get("x-should-retry");
  if (hint === "true") return { message, retryable: true };
  if (hint === "false") return { message, retryable: false };
  return { message };
}

/** Provider words made safe to show: no key, no signed URLs, bounded. */
export function safeWording(config: ProviderConfig, text: string, max = 500): string {
  return safeProviderMessage(text, [config.apiKey], max);
}

/** The cheapest authenticated call: the organization the key belongs to (`GET /v1/organization`). */
export async function verifyKey(config: ProviderConfig): Promise<void> {
  await verifyWithRead(config, authHeaders(config), "/v1/organization", describeRunway);
}
