/**
 * A payment provider sells credits through a hosted checkout: the service creates a checkout and
 * sends the buyer to its URL; the provider later tells the service, in a signed webhook, that it
 * was paid. Credits are granted from that verified event only (src/services/purchases.ts).
 */

export interface CheckoutRequest {
  tenant_id: string;
  /** Credits the payment grants (decimal string), also recorded with the provider. */
  credits: string;
  /** The price in the currency's minor unit (cents). */
  amount: number;
  /** ISO 4217, lowercase. */
  currency: string;
  success_url: string;
  cancel_url: string;
}

export interface Checkout {
  /** The provider's id of the checkout. */
  id: string;
  /** Where the buyer pays. */
  url: string;
}

/** What a verified webhook says, in the service's terms. */
export type PaymentEvent =
  | {
      type: "paid";
      event_id: string;
      checkout_id: string;
      /** The tenant the checkout was created for (as sent when it was created); null: not ours. */
      tenant_id: string | null;
      amount: number;
      currency: string;
    }
  | {
      type: "closed";
      status: "expired" | "failed";
      event_id: string;
      checkout_id: string;
      tenant_id: string | null;
    }
  /** Anything else (other event types, a checkout completed but not yet paid): acknowledged only. */
  | { type: "ignored"; event_id: string; event_type: string };

export interface PaymentProvider {
  readonly name: string;
  createCheckout(input: CheckoutRequest): Promise<Checkout>;
  /** Throws WebhookRejected for a missing, wrong or stale signature, or a body that is not an event. */
  verifyWebhook(request: Request): Promise<PaymentEvent>;
}

/** A webhook the service refuses (answered 400, so the provider shows it failed). */
export class WebhookRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookRejected";
  }
}
