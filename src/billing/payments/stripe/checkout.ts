/**
 * Creating a Stripe Checkout Session (`POST /v1/checkout/sessions`, form-encoded, Bearer secret
 * key), priced inline with `price_data`, so no Product or Price needs to exist in the Stripe
 * account. The tenant goes in `client_reference_id` and `metadata`, which the webhook reads back.
 */
import { ApiError } from "../../../errors/api-error";
import type { Checkout, CheckoutRequest } from "../provider";
import type { StripeConfig } from "./config";

const TIMEOUT_MS = 15_000;

export function checkoutForm(input: CheckoutRequest): URLSearchParams {
  const form = new URLSearchParams();
  form.set("mode", "payment");
  form.set("line_items[0][price_data][currency]", input.currency);
  form.set("line_items[0][price_data][unit_amount]", String(input.amount));
  form.set("line_items[0][price_data][product_data][name]", `${input.credits} credits`);
  form.set("line_items[0][quantity]", "1");
  form.set("success_url", input.success_url);
  form.set("cancel_url", input.cancel_url);
  form.set("client_reference_id", input.tenant_id);
  form.set("metadata[tenant_id]", input.tenant_id);
  form.set("metadata[credits]", input.credits);
  return form;
}

/** Stripe's error body: `{error: {type, message, param?, code?}}`. */
interface StripeError {
  type?: string;
  message?: string;
  param?: string;
  code?: string;
}

/** The request's field a Stripe parameter came from, for `param` in our own error. */
const PARAM_OF: [RegExp, string][] = [
  [/unit_amount/, "/amount"],
  [/currency/, "/currency"],
  [/^success_url$/, "/success_url"],
  [/^cancel_url$/, "/cancel_url"],
];

export async function createStripeCheckout(config: StripeConfig, input: CheckoutRequest): Promise<Checkout> {
  let res: Response;
  try {
    res = await config.fetch(`${config.baseUrl}/v1/checkout/sessions`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${config.secretKey}`,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: checkoutForm(input).toString(),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (e) {
    const timedOut = e instanceof Error && e.name === "TimeoutError";
    throw new ApiError(
      "billing_failed",
      `Stripe ${timedOut ? "did not answer in time" : "could not be reached"}; nothing was charged. Retry.`,
      {
        details: { provider: "stripe" },
      },
    );
  }
  const text = await res.text();
  let body: { id?: unknown; url?: unknown; error?: StripeError } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (res.ok) {
    if (typeof body?.id === "string" && typeof body.url === "string") return { id: body.id, url: body.url };
    throw new ApiError("billing_failed", "Stripe answered without a checkout URL; nothing was charged. Retry.", {
      details: { provider: "stripe", provider_status: res.status },
    });
  }
  const err = body?.error ?? {};
  const said = (err.message ?? `HTTP ${res.status}`).slice(0, 300);
  const details = { provider: "stripe", provider_status: res.status, provider_error_type: err.type ?? null };
  if (res.status === 429 || res.status >= 500) {
    throw new ApiError("billing_failed", `Stripe could not create the checkout now (${said}); nothing was charged. Retry.`, {
      details,
    });
  }
  const param = err.param ? PARAM_OF.find(([re]) => re.test(err.param as string))?.[1] : undefined;
  if (param && err.type === "invalid_request_error") {
    throw new ApiError("invalid_request", `Stripe refused the checkout: ${said}`, {
      param,
      details: { ...details, errors: [{ loc: ["body", param.slice(1)], reason: said }] },
    });
  }
  // A refused key, a disabled account or a request Stripe will never take: not something a retry fixes.
  throw new ApiError("payment_provider_unavailable", `The payment provider refused the checkout: ${said}`, { details });
}
