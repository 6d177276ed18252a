/**
 * Stripe webhooks: `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, where each v1 is
 * HMAC-SHA256 of `<t>.<raw body>` under the endpoint's signing secret (several while Stripe rolls
 * the secret: any may match). A timestamp more than 5 minutes from now is refused (replays).
 */
import { hmacSha256Hex, timingSafeEqualStrings } from "../../../lib/crypto";
import { type PaymentEvent, WebhookRejected } from "../provider";

export const SIGNATURE_TOLERANCE_SECONDS = 300;

export async function verifyStripeSignature(
  secret: string,
  header: string | null,
  body: string,
  nowSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): Promise<void> {
  if (!header) throw new WebhookRejected("missing Stripe-Signature header");
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === "v1") signatures.push(value);
  }
  if (timestamp === null) throw new WebhookRejected("Stripe-Signature has no timestamp");
  if (signatures.length === 0) throw new WebhookRejected("Stripe-Signature has no v1 signature");
  const expected = await hmacSha256Hex(secret, `${timestamp}.${body}`);
  if (!signatures.some((s) => timingSafeEqualStrings(s, expected))) throw new WebhookRejected("no signature matches");
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    throw new WebhookRejected(`timestamp outside the ${toleranceSeconds} s tolerance`);
  }
}

interface StripeSession {
  id?: unknown;
  client_reference_id?: unknown;
  metadata?: { tenant_id?: unknown } | null;
  payment_status?: unknown;
  amount_total?: unknown;
  currency?: unknown;
  mode?: unknown;
}

/** The tenant a session was created for: `client_reference_id`, which our metadata must not contradict. */
function tenantOf(s: StripeSession): string | null {
  const ref = typeof s.client_reference_id === "string" ? s.client_reference_id : null;
  const meta = typeof s.metadata?.tenant_id === "string" ? s.metadata.tenant_id : null;
  if (ref && meta && ref !== meta) return null;
  return ref ?? meta;
}

/** An event's body, verified already, in the service's terms. */
export function parseStripeEvent(body: string): PaymentEvent {
  let event: { id?: unknown; type?: unknown; data?: { object?: StripeSession } };
  try {
    event = JSON.parse(body);
  } catch {
    throw new WebhookRejected("body is not JSON");
  }
  if (typeof event?.id !== "string" || typeof event.type !== "string") throw new WebhookRejected("body is not a Stripe event");
  const ignored: PaymentEvent = { type: "ignored", event_id: event.id, event_type: event.type };
  const session = event.data?.object;
  if (!event.type.startsWith("checkout.session.") || typeof session?.id !== "string") return ignored;
  const base = { event_id: event.id, checkout_id: session.id, tenant_id: tenantOf(session) };
  switch (event.type) {
    // `completed` is paid for cards; a delayed method (a bank debit) completes `unpaid` and pays later.
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      if (session.payment_status !== "paid" || typeof session.amount_total !== "number" || typeof session.currency !== "string") {
        return ignored;
      }
      return { type: "paid", ...base, amount: session.amount_total, currency: session.currency.toLowerCase() };
    case "checkout.session.expired":
      return { type: "closed", status: "expired", ...base };
    case "checkout.session.async_payment_failed":
      return { type: "closed", status: "failed", ...base };
    default:
      return ignored;
  }
}
