/** The Stripe adapter of the payment provider interface: Checkout Sessions and signed webhooks. */
import type { PaymentEvent, PaymentProvider } from "../provider";
import { createStripeCheckout } from "./checkout";
import type { StripeConfig } from "./config";
import { parseStripeEvent, verifyStripeSignature } from "./webhook";

export function stripeProvider(config: StripeConfig, now: () => number = Date.now): PaymentProvider {
  return {
    name: "stripe",
    createCheckout: (input) => createStripeCheckout(config, input),
    async verifyWebhook(request: Request): Promise<PaymentEvent> {
      const body = await request.text();
      await verifyStripeSignature(config.webhookSecret, request.headers.get("Stripe-Signature"), body, Math.floor(now() / 1000));
      return parseStripeEvent(body);
    },
  };
}
