/**
 * Buying credits as the doors reach it: prices, checkout and the payment provider's webhook.
 */

export type { PriceTable } from "../billing/payments/prices";
export { formatMoney, MAX_UNITS, MIN_UNITS, minorPerUnit } from "../billing/payments/prices";
export { WebhookRejected } from "../billing/payments/provider";
export { applyPaymentWebhook, creditsOverview, requirePayments, startCheckout } from "./purchases";
