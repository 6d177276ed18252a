/**
 * Standard Webhooks signatures (`webhook-id`, `webhook-timestamp`, `webhook-signature`). With more
 * than one secret (a rotation's overlap), `webhook-signature` lists one signature per secret,
 * space-separated, newest first, as the specification allows: a receiver holding either secret
 * finds its own among them.
 */
import { Webhook } from "standardwebhooks";

export function signatureHeaders(
  secrets: string | readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const at = new Date(timestampSeconds * 1000);
  const list = typeof secrets === "string" ? [secrets] : secrets;
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": list.map((s) => new Webhook(s).sign(messageId, at, body)).join(" "),
  };
}

/** Standard Webhooks secrets: `whsec_` + base64 of 32 random bytes (the spec asks for 24 to 64). */
export function newSigningSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}
