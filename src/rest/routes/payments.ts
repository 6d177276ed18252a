/**
 * Buying credits over HTTP: `POST /v1/credits/checkout` starts a hosted checkout for the caller's
 * tenant (any live key: a checkout spends nothing until someone pays it on the provider's page),
 * and `POST /webhooks/payments/stripe` takes Stripe's signed events (no API key: the signature is
 * the credential). Without a configured provider both answer 503 `payment_provider_unavailable`.
 */
import { z } from "@hono/zod-openapi";
import { Hono } from "hono";
import { ApiError } from "../../errors/api-error";
import { type AppEnv, newRouter } from "../../http/context";
import { applyPaymentWebhook, requirePayments, startCheckout, WebhookRejected } from "../../services/payments";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const ReturnUrl = z
  .string()
  .max(2048)
  .refine((s) => /^https?:\/\/[^\s]+$/i.test(s) && URL.canParse(s), "must be an absolute http(s) URL");

const CheckoutBody = z
  .object({
    amount: z.number().int().openapi({
      description:
        "The price to pay, in the currency's smallest unit (cents): 1000 is US$10.00. From 5 to 10,000 units of the currency.",
      example: 1000,
    }),
    currency: z
      .string()
      .regex(/^[a-zA-Z]{3}$/, "must be a three-letter ISO 4217 code")
      .optional()
      .openapi({ description: "ISO 4217; one the deployment sells (default: its first, usually usd)", example: "usd" }),
    success_url: ReturnUrl.optional().openapi({
      description: "Where the buyer returns after paying (default: the console's credits page)",
      example: "https://example.com/paid",
    }),
    cancel_url: ReturnUrl.optional().openapi({
      description: "Where the buyer returns when abandoning the payment (default: the console's credits page)",
      example: "https://example.com/canceled",
    }),
  })
  .strict();

const Checkout = z
  .object({
    object: z.literal("checkout"),
    id: z.string().openapi({ description: "The provider's checkout id", example: "cs_test_a1b2c3" }),
    url: z.string().openapi({ description: "Send the buyer here to pay" }),
    provider: z.string().openapi({ example: "stripe" }),
    amount: z.number().int(),
    currency: z.string(),
    credits: z.string().openapi({ description: "Credits granted once the provider confirms the payment (decimal string)" }),
  })
  .openapi("CreditCheckout");

export const paymentRoutes = newRouter();

declare(
  paymentRoutes,
  {
    method: "post",
    path: "/v1/credits/checkout",
    operationId: "createCreditCheckout",
    tags: ["Account"],
    summary: "Start buying credits: a hosted checkout of the payment provider",
    description:
      "Any live key may start a checkout for its tenant; the credits are granted when the provider's signed webhook confirms the payment, once per checkout. Test-mode keys cannot buy credits (403 `forbidden`). Without a configured payment provider: 503 `payment_provider_unavailable`.",
    security: [{ bearerAuth: [] }],
    "x-lifecycle": "preview",
    permission: null,
    guard: (c) => {
      if (c.get("caller").mode === "test") {
        throw new ApiError("forbidden", "Test-mode keys cannot buy credits: test requests are charged nothing.", {
          details: { mode: "test" },
        });
      }
      requirePayments(c.env);
    },
    request: { body: { required: true, content: { "application/json": { schema: CheckoutBody } } } },
    responses: {
      201: { description: "The checkout: send the buyer to `url`", content: { "application/json": { schema: Checkout } } },
      ...errorResponses(400, 401, 403, 422, 429, 500, 503),
    },
  },
  async (c) => {
    const caller = c.get("caller");
    const checkout = await startCheckout(c.env, caller.tenant_id, c.req.valid("json"), {
      actor: { type: "api_key", id: caller.key_id },
      ip: c.req.header("CF-Connecting-IP") ?? null,
      user_agent: c.req.header("User-Agent") ?? null,
    });
    return c.json(checkout, 201);
  },
);

/** Provider webhooks: outside /v1 (no API key, no JSON pre-parsing: the raw body is what is signed). */
export const paymentWebhookRoutes = new Hono<AppEnv>();

paymentWebhookRoutes.post("/webhooks/payments/:provider", async (c) => {
  try {
    const result = await applyPaymentWebhook(c.env, c.req.param("provider"), c.req.raw, {
      ip: c.req.header("CF-Connecting-IP") ?? null,
      user_agent: c.req.header("User-Agent") ?? null,
    });
    return c.json(result, 200);
  } catch (e) {
    if (e instanceof WebhookRejected) return c.json({ received: false, error: `signature not valid: ${e.message}` }, 400);
    throw e;
  }
});
