/**
 * Replicate signs webhooks per Standard Webhooks (replicate.com/docs/topics/webhooks/verify-webhook):
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256>` over
 * `id.timestamp.body`), keyed with the account's `whsec_…` secret (GET /v1/webhooks/default/secret),
 * configured here as PROVIDER_REPLICATE_WEBHOOK_SECRET. The body is the prediction object.
 * A webhook only wakes the task; polling decides, so anything doubtful is simply refused.
 */
import { Webhook } from "standardwebhooks";
import type { ProviderConfig } from "../config";

export async function verifyReplicateWebhook(
  request: Request,
  body: Uint8Array,
  config: ProviderConfig,
): Promise<{ job_id: string } | null> {
  const secret = config.webhookSecret;
  if (!secret) return null;
  const headers = {
    "webhook-id": request.headers.get("webhook-id") ?? "",
    "webhook-timestamp": request.headers.get("webhook-timestamp") ?? "",
    "webhook-signature": request.headers.get("webhook-signature") ?? "",
  };
  if (!headers["webhook-id"] || !headers["webhook-timestamp"] || !headers["webhook-signature"]) return null;
  let payload: unknown;
  try {
    // The signature covers the exact bytes: a body that is not valid UTF-8 cannot be the JSON Replicate sent.
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
    // Checks the signature and that the timestamp is within five minutes (replays are refused).
    payload = new Webhook(secret).verify(text, headers);
  } catch {
    return null;
  }
  const id = payload && typeof payload === "object" ? (payload as Record<string, unknown>).id : undefined;
  return typeof id === "string" && id.length > 0 ? { job_id: id } : null;
}
