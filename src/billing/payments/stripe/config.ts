import type { Env } from "../../../env";

export const STRIPE_API = "https://api.stripe.com";

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  baseUrl: string;
  fetch: typeof fetch;
}

/** Payments through Stripe need both secrets: a checkout nobody can confirm would take money and grant nothing. */
export function stripeConfig(env: Env, fetchImpl: typeof fetch = fetch): StripeConfig | null {
  const secretKey = env.PAYMENTS_STRIPE_SECRET_KEY?.trim();
  const webhookSecret = env.PAYMENTS_STRIPE_WEBHOOK_SECRET?.trim();
  if (!secretKey || !webhookSecret) return null;
  const baseUrl = (env.PAYMENTS_STRIPE_BASE_URL?.trim() || STRIPE_API).replace(/\/+$/, "");
  return { secretKey, webhookSecret, baseUrl, fetch: fetchImpl };
}
