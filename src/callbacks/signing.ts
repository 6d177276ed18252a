/** Standard Webhooks signatures (`webhook-id`, `webhook-timestamp`, `webhook-signature`). */
import { Webhook } from "standardwebhooks";

export function signatureHeaders(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const signature = new Webhook(secret).sign(messageId, new Date(timestampSeconds * 1000), body);
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signature,
  };
}
