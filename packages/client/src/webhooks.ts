/**
 * Verifying a webhook (an endpoint's event or a task's callback) as Standard Webhooks defines it:
 * the HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${body}` under the secret (`whsec_` +
 * base64), base64-encoded, among the space-separated `v1,` entries of `webhook-signature`. Any of
 * several secrets may match, so a receiver keeps verifying through a rotation's overlap. Uses the
 * platform's WebCrypto: nothing to install.
 */

/** How far a message's timestamp may be from this machine's clock, either way. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** The clock, in milliseconds (tests move it). */
  now?: number;
  toleranceSeconds?: number;
}

/** A verified message: the parsed body, and its id (the same on every retry and resend: deduplicate on it). */
export interface VerifiedWebhook<T = unknown> {
  id: string;
  timestamp: Date;
  payload: T;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function toBase64(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

/** Compares without stopping at the first difference, so timing reveals nothing of the expected value. */
function same(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

async function sign(secret: string, content: string): Promise<string> {
  let raw: Uint8Array;
  try {
    raw = fromBase64(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
  } catch {
    throw new WebhookVerificationError("A secret is not a whsec_ secret (base64 after the prefix).");
  }
  const key = await crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return toBase64(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(content)));
}

/**
 * Verifies a delivery and answers its parsed body; throws WebhookVerificationError when a header is
 * missing, the timestamp is outside the tolerance, or no signature matches any of `secrets`.
 * Pass the body exactly as received (the raw text, before any JSON parsing).
 */
export async function verifyWebhook<T = unknown>(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<VerifiedWebhook<T>> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature.");
  }
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds)) {
    throw new WebhookVerificationError("webhook-timestamp is not a number of seconds.");
  }
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(now - seconds) > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now.`);
  }
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  const offered = signatures
    .split(" ")
    .filter((s) => s.startsWith("v1,"))
    .map((s) => s.slice(3));
  const list = typeof secrets === "string" ? [secrets] : secrets;
  for (const secret of list) {
    const expected = await sign(secret, `${id}.${timestamp}.${text}`);
    if (offered.some((s) => same(s, expected))) {
      let payload: T;
      try {
        payload = JSON.parse(text) as T;
      } catch {
        throw new WebhookVerificationError("The body is not JSON.");
      }
      return { id, timestamp: new Date(seconds * 1000), payload };
    }
  }
  throw new WebhookVerificationError("No signature matches the secrets given.");
}
