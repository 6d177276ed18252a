/**
 * Buying credits: start a hosted checkout with the configured provider, and apply its verified
 * webhook events to the tenant's ledger (once per checkout: src/billing/payments/checkout-rows.ts).
 * Transport-free: the console, the REST API and the webhook route call these.
 */

import { accountFor } from "../accounts/account-stub";
import { type AuditBy, audited, createdBy } from "../audit/audited";
import type { PaymentOutcome } from "../billing/payments/checkout-rows";
import {
  amountBounds,
  creditsFor,
  formatMoney,
  type PriceTable,
  PriceTableInvalid,
  priceTable,
} from "../billing/payments/prices";
import type { PaymentProvider } from "../billing/payments/provider";
import { stripeConfig } from "../billing/payments/stripe/config";
import { stripeProvider } from "../billing/payments/stripe/provider";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { tenantNotFound } from "../errors/not-found";
import { publicBaseUrl } from "../lib/public-url";
import { getTenantOr404 } from "../tenancy/account-slice";

const TENANT_ID = /^ten_[0-9a-z]{26}$/;

/** The configured provider, or null: payments are off (the console says so, the API answers 503). */
export function paymentProvider(env: Env): PaymentProvider | null {
  const stripe = stripeConfig(env);
  return stripe ? stripeProvider(stripe) : null;
}

export function unavailable(): ApiError {
  return new ApiError(
    "payment_provider_unavailable",
    "No payment provider is configured on this deployment: credits cannot be bought here. Ask the operator for a grant.",
  );
}

/** The provider and its prices, or 503 `payment_provider_unavailable`. */
export function requirePayments(env: Env): { provider: PaymentProvider; prices: PriceTable } {
  const provider = paymentProvider(env);
  if (!provider) throw unavailable();
  try {
    return { provider, prices: priceTable(env) };
  } catch (e) {
    if (!(e instanceof PriceTableInvalid)) throw e;
    console.error(JSON.stringify({ level: "error", message: e.message }));
    throw new ApiError("payment_provider_unavailable", "Payments are misconfigured on this deployment (its price table).");
  }
}

export interface CheckoutInput {
  /** In the currency's minor unit (cents). */
  amount: number;
  /** Default: the first currency of the price table. */
  currency?: string;
  /** Default: the console's credits page (needs PUBLIC_BASE_URL, or `base_url`). */
  success_url?: string;
  cancel_url?: string;
}

export interface StartedCheckout {
  object: "checkout";
  id: string;
  url: string;
  provider: string;
  amount: number;
  currency: string;
  credits: string;
}

function invalid(param: string, reason: string): ApiError {
  return new ApiError("invalid_request", `${param.slice(1)} ${reason}.`, {
    param,
    details: { errors: [{ loc: ["body", param.slice(1)], reason }] },
  });
}

/**
 * Prices the purchase, creates the provider's checkout, and records it (with the audit entry)
 * before its URL is given out. `base_url` is where the console's own pages are when the
 * deployment has no PUBLIC_BASE_URL (local development).
 */
export async function startCheckout(
  env: Env,
  tenantId: string,
  input: CheckoutInput,
  by: AuditBy,
  opts: { base_url?: string } = {},
): Promise<StartedCheckout> {
  const { provider, prices } = requirePayments(env);
  const currency = (input.currency ?? prices.currencies[0] ?? "usd").toLowerCase();
  if (!prices.creditsPerUnit.has(currency)) {
    throw invalid("/currency", `must be one of ${prices.currencies.join(", ")}`);
  }
  const { min, max } = amountBounds(currency);
  if (!Number.isInteger(input.amount) || input.amount < min || input.amount > max) {
    throw invalid(
      "/amount",
      `must be an integer from ${min} to ${max} (${formatMoney(min, currency)} to ${formatMoney(max, currency)})`,
    );
  }
  const base = publicBaseUrl(env) || opts.base_url || "";
  const page = base ? `${base}/console/credits` : "";
  const success_url = input.success_url ?? (page && `${page}?checkout=success&session_id={CHECKOUT_SESSION_ID}`);
  const cancel_url = input.cancel_url ?? (page && `${page}?checkout=canceled`);
  if (!success_url) throw invalid("/success_url", "is required: this deployment has no PUBLIC_BASE_URL to return to");
  if (!cancel_url) throw invalid("/cancel_url", "is required: this deployment has no PUBLIC_BASE_URL to return to");
  await getTenantOr404(env, tenantId);
  const credits = creditsFor(prices, currency, input.amount);
  const checkout = await provider.createCheckout({
    tenant_id: tenantId,
    credits,
    amount: input.amount,
    currency,
    success_url,
    cancel_url,
  });
  const recorded = await accountFor(env, tenantId).recordCheckout(
    { checkout_id: checkout.id, provider: provider.name, credits, amount: input.amount, currency, created_by: createdBy(by) },
    audited(by, "credits.checkout", checkout.id, { provider: provider.name, amount: input.amount, currency, credits }),
  );
  if (!recorded) throw tenantNotFound(tenantId);
  return {
    object: "checkout",
    id: checkout.id,
    url: checkout.url,
    provider: provider.name,
    amount: input.amount,
    currency,
    credits,
  };
}

export type WebhookResult = { received: true; outcome: PaymentOutcome["outcome"] | "ignored" | "closed" | "not_open" };

/**
 * Applies one webhook delivery. Throws WebhookRejected (answer 400) for a bad signature, and
 * ApiError 503 when the provider is not configured; a failure to reach the ledger propagates
 * (answer 5xx), so the provider delivers the event again.
 */
export async function applyPaymentWebhook(
  env: Env,
  providerName: string,
  request: Request,
  from: { ip: string | null; user_agent: string | null },
): Promise<WebhookResult> {
  const provider = paymentProvider(env);
  if (provider?.name !== providerName) throw unavailable();
  const event = await provider.verifyWebhook(request);
  if (event.type === "ignored") return { received: true, outcome: "ignored" };
  // A checkout another product of the same provider account made: not ours to grant.
  if (!event.tenant_id || !TENANT_ID.test(event.tenant_id)) return { received: true, outcome: "unknown_checkout" };
  const account = accountFor(env, event.tenant_id);
  if (event.type === "closed") {
    const closed = await account.closeCheckout(event.checkout_id, provider.name, event.status, event.event_id);
    return { received: true, outcome: closed ? "closed" : "not_open" };
  }
  const by: AuditBy = { actor: { type: "operator", id: `payments:${provider.name}` }, ...from };
  const result = await account.completeCheckout(
    {
      checkout_id: event.checkout_id,
      provider: provider.name,
      event_id: event.event_id,
      amount: event.amount,
      currency: event.currency,
    },
    audited(by, "credits.purchase", event.checkout_id, {
      event_id: event.event_id,
      amount: event.amount,
      currency: event.currency,
    }),
  );
  if (result.outcome === "amount_mismatch") {
    console.error(
      JSON.stringify({
        level: "error",
        message: "payment event amount differs from its checkout; nothing granted",
        provider: provider.name,
        checkout_id: event.checkout_id,
        event_id: event.event_id,
        paid: { amount: event.amount, currency: event.currency },
        expected: result.expected,
      }),
    );
  }
  return { received: true, outcome: result.outcome };
}

/** The credits page's figures: balance, the grants (newest first) and the recent purchases. */
export async function creditsOverview(env: Env, tenantId: string, limit = 50) {
  const account = accountFor(env, tenantId);
  // The account's own view of its balance: billing sits below the services that format it for a door.
  const [balance, grants, checkouts] = await Promise.all([
    account.balanceView(),
    account.grants(limit),
    account.checkouts(limit),
  ]);
  if (!balance) throw tenantNotFound(tenantId);
  return { balance, grants, checkouts };
}
