import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AccountObject } from "../../src/accounts/account-object";
import { accountFor } from "../../src/accounts/account-stub";
import { createApp } from "../../src/app";
import { listAudit } from "../../src/audit/audit";
import { amountBounds, creditsFor, priceTable } from "../../src/billing/payments/prices";
import { WebhookRejected } from "../../src/billing/payments/provider";
import { stripeConfig } from "../../src/billing/payments/stripe/config";
import { stripeProvider } from "../../src/billing/payments/stripe/provider";
import { parseStripeEvent, verifyStripeSignature } from "../../src/billing/payments/stripe/webhook";
import type { Env } from "../../src/env";
import { ApiError } from "../../src/errors/api-error";
import { BASE, call, expectError, newTenant, readResponse } from "../helpers/api";
import { createFakeStripe, FAKE_STRIPE_BASE } from "./fake-stripe";

const SECRET_KEY = "sk_test_fake_0123456789";
const WEBHOOK_SECRET = "whsec_fake_webhook_secret_0123456789";
const PAYMENTS = {
  PAYMENTS_STRIPE_SECRET_KEY: SECRET_KEY,
  PAYMENTS_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  PAYMENTS_STRIPE_BASE_URL: FAKE_STRIPE_BASE,
};

let stripe: ReturnType<typeof createFakeStripe>;
beforeEach(() => {
  stripe = createFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
});

const app = createApp();

/** The Worker's app with payments configured (or any other variables), through a real execution context. */
async function callConfigured(path: string, init: RequestInit & { key?: string } = {}, extra: Partial<Env> = PAYMENTS) {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("Authorization", `Bearer ${init.key}`);
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${BASE}${path}`, { ...init, headers }), { ...env, ...extra }, ctx);
  await waitOnExecutionContext(ctx);
  return readResponse(res);
}

/** The Worker's outgoing requests to the Stripe base URL go to the fake; nothing else is touched. */
function routeStripeToFake() {
  const real = globalThis.fetch;
  return vi.spyOn(globalThis, "fetch").mockImplementation((input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    return url.startsWith(FAKE_STRIPE_BASE) ? stripe.fetch(input, init) : real(input, init);
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

function adapter(now = Date.now) {
  const config = stripeConfig({ ...env, ...PAYMENTS } as Env, stripe.fetch);
  if (!config) throw new Error("not configured");
  return stripeProvider(config, now);
}

const checkoutInput = {
  tenant_id: "ten_0123456789abcdefghjkmnpqrs",
  credits: "1000",
  amount: 1000,
  currency: "usd",
  success_url: "https://console.test/console/credits?checkout=success&session_id={CHECKOUT_SESSION_ID}",
  cancel_url: "https://console.test/console/credits?checkout=canceled",
};

async function caught(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

describe("the Stripe adapter: creating a checkout", () => {
  it("speaks Stripe's wire format: form-encoded, Bearer secret key, inline price data, the tenant as reference", async () => {
    const checkout = await adapter().createCheckout(checkoutInput);
    expect(checkout.id).toMatch(/^cs_test_/);
    expect(checkout.url).toBe(`https://checkout.stripe.com/c/pay/${checkout.id}`);
    const [req] = stripe.requests;
    expect(req).toMatchObject({
      method: "POST",
      path: "/v1/checkout/sessions",
      authorization: `Bearer ${SECRET_KEY}`,
      contentType: "application/x-www-form-urlencoded",
    });
    expect(Object.fromEntries(req?.form ?? [])).toEqual({
      mode: "payment",
      "line_items[0][price_data][currency]": "usd",
      "line_items[0][price_data][unit_amount]": "1000",
      "line_items[0][price_data][product_data][name]": "1000 credits",
      "line_items[0][quantity]": "1",
      success_url: checkoutInput.success_url,
      cancel_url: checkoutInput.cancel_url,
      client_reference_id: checkoutInput.tenant_id,
      "metadata[tenant_id]": checkoutInput.tenant_id,
      "metadata[credits]": "1000",
    });
    expect(stripe.sessions.get(checkout.id)).toMatchObject({ amount_total: 1000, currency: "usd", payment_status: "unpaid" });
  });

  it("maps Stripe's refusals: a refused key or account is 503, a bad amount 422 at /amount", async () => {
    stripe.failNext(401, { type: "invalid_request_error", message: "Invalid API Key provided: sk_test_****" });
    const refused = await caught(adapter().createCheckout(checkoutInput));
    expect(refused.code).toBe("payment_provider_unavailable");
    expect(refused.message).toContain("Invalid API Key");

    const tooSmall = await caught(adapter().createCheckout({ ...checkoutInput, amount: 20 }));
    expect(tooSmall.code).toBe("invalid_request");
    expect(tooSmall.param).toBe("/amount");
    expect(tooSmall.message).toContain("at least 50 usd");

    stripe.failNext(400, { type: "invalid_request_error", message: "Something else is wrong.", param: "payment_method_types" });
    expect((await caught(adapter().createCheckout(checkoutInput))).code).toBe("payment_provider_unavailable");
  });

  it("maps Stripe's own failures and an unreachable Stripe to retryable billing_failed", async () => {
    stripe.failNext(500, { type: "api_error", message: "An unknown error occurred." });
    const server = await caught(adapter().createCheckout(checkoutInput));
    expect(server.code).toBe("billing_failed");
    expect(server.details).toMatchObject({ provider: "stripe", provider_status: 500, provider_error_type: "api_error" });
    stripe.failNext(429, { type: "rate_limit_error", message: "Too many requests." });
    expect((await caught(adapter().createCheckout(checkoutInput))).code).toBe("billing_failed");

    const config = stripeConfig({ ...env, ...PAYMENTS } as Env, () => Promise.reject(new TypeError("connection refused")));
    const down = await caught(stripeProvider(config as NonNullable<typeof config>).createCheckout(checkoutInput));
    expect(down.code).toBe("billing_failed");
  });

  it("is off unless both secrets are set", () => {
    expect(stripeConfig({ ...env, PAYMENTS_STRIPE_SECRET_KEY: SECRET_KEY } as Env)).toBeNull();
    expect(stripeConfig({ ...env, PAYMENTS_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET } as Env)).toBeNull();
    expect(stripeConfig({ ...env, ...PAYMENTS } as Env)?.baseUrl).toBe(FAKE_STRIPE_BASE);
    expect(stripeConfig({ ...env, ...PAYMENTS, PAYMENTS_STRIPE_BASE_URL: undefined } as Env)?.baseUrl).toBe(
      "https://api.stripe.com",
    );
  });
});

describe("the price table", () => {
  it("defaults to 100 credits per US dollar, and prices exactly", () => {
    const table = priceTable({});
    expect(table.currencies).toEqual(["usd"]);
    expect(creditsFor(table, "usd", 1050)).toBe("1050");
    const multi = priceTable({ PAYMENTS_CREDITS_PER_UNIT: "eur:105.5, jpy:0.7" });
    expect(creditsFor(multi, "eur", 1001)).toBe("1056.055");
    expect(creditsFor(multi, "jpy", 1000)).toBe("700");
    expect(amountBounds("jpy")).toEqual({ min: 5, max: 10_000 });
    expect(amountBounds("usd")).toEqual({ min: 500, max: 1_000_000 });
  });

  it.each(["usd", "usd:", "usd:0", "usd:100,usd:90", "kwd:10", "dollars:100"])("refuses %j", (raw) => {
    expect(() => priceTable({ PAYMENTS_CREDITS_PER_UNIT: raw })).toThrow(/PAYMENTS_CREDITS_PER_UNIT/);
  });
});

describe("Stripe webhook signatures", () => {
  const body = '{"id":"evt_1","type":"checkout.session.expired","data":{"object":{"id":"cs_1"}}}';
  const now = 1_800_000_000;

  it("accepts the endpoint's signature within 5 minutes, and any of several v1 signatures", async () => {
    const sig = await stripe.signature(body, now);
    await expect(verifyStripeSignature(WEBHOOK_SECRET, sig, body, now + 299)).resolves.toBeUndefined();
    const other = await stripe.signature(body, now, "whsec_the_old_secret");
    const both = `${other},${sig.split(",")[1]}`;
    await expect(verifyStripeSignature(WEBHOOK_SECRET, both, body, now)).resolves.toBeUndefined();
  });

  it.each([
    ["no header", async () => null, /missing/],
    ["another secret", () => stripe.signature(body, now, "whsec_someone_else"), /no signature matches/],
    ["no timestamp", async () => (await stripe.signature(body, now)).split(",")[1] as string, /no timestamp/],
    ["no v1", async () => `t=${now},v0=abc`, /no v1/],
    ["a stale timestamp", () => stripe.signature(body, now - 301), /tolerance/],
    ["a future timestamp", () => stripe.signature(body, now + 301), /tolerance/],
  ])("refuses %s", async (_name, header, reason) => {
    await expect(verifyStripeSignature(WEBHOOK_SECRET, await header(), body, now)).rejects.toThrow(reason);
  });

  it("refuses a body changed after signing", async () => {
    const sig = await stripe.signature(body, now);
    await expect(verifyStripeSignature(WEBHOOK_SECRET, sig, body.replace("cs_1", "cs_2"), now)).rejects.toBeInstanceOf(
      WebhookRejected,
    );
  });

  it("reads a paid session, a session still unpaid, an expiry, and ignores other events", async () => {
    const session = (over: object) => ({ id: "cs_9", client_reference_id: "ten_x", metadata: { tenant_id: "ten_x" }, ...over });
    const ev = (type: string, object: object) => JSON.stringify({ id: "evt_9", type, data: { object } });
    expect(
      parseStripeEvent(ev("checkout.session.completed", session({ payment_status: "paid", amount_total: 500, currency: "USD" }))),
    ).toEqual({
      type: "paid",
      event_id: "evt_9",
      checkout_id: "cs_9",
      tenant_id: "ten_x",
      amount: 500,
      currency: "usd",
    });
    expect(parseStripeEvent(ev("checkout.session.completed", session({ payment_status: "unpaid" }))).type).toBe("ignored");
    expect(parseStripeEvent(ev("checkout.session.expired", session({})))).toMatchObject({ type: "closed", status: "expired" });
    expect(parseStripeEvent(ev("payment_intent.succeeded", { id: "pi_1" })).type).toBe("ignored");
    // A reference and metadata that disagree name no tenant.
    expect(parseStripeEvent(ev("checkout.session.expired", session({ metadata: { tenant_id: "ten_y" } })))).toMatchObject({
      tenant_id: null,
    });
    expect(() => parseStripeEvent("not json")).toThrow(WebhookRejected);
  });
});

async function ledger(tenantId: string) {
  return runInDurableObject(accountFor(env, tenantId) as DurableObjectStub<AccountObject>, (o) => o.ledger());
}

async function deliver(body: string, signature?: string) {
  return callConfigured("/webhooks/payments/stripe", {
    method: "POST",
    headers: { "Content-Type": "application/json", "Stripe-Signature": signature ?? (await stripe.signature(body)) },
    body,
  });
}

async function startCheckout(key: string, body: object = { amount: 1000 }) {
  routeStripeToFake();
  const res = await callConfigured("/v1/credits/checkout", {
    method: "POST",
    key,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  vi.restoreAllMocks();
  return res;
}

describe("buying credits through the API and the webhook", () => {
  it("answers 503 payment_provider_unavailable without a configured provider", async () => {
    const t = await newTenant();
    expectError(
      await call("/v1/credits/checkout", { key: t.api_key, body: { amount: 1000 } }),
      503,
      "payment_provider_unavailable",
    );
    const hook = await call("/webhooks/payments/stripe", { rawBody: "{}", headers: { "Stripe-Signature": "t=1,v1=00" } });
    expectError(hook, 503, "payment_provider_unavailable");
    // One secret without the other is not a provider either.
    const half = await callConfigured(
      "/v1/credits/checkout",
      { method: "POST", key: t.api_key, headers: { "Content-Type": "application/json" }, body: '{"amount":1000}' },
      { PAYMENTS_STRIPE_SECRET_KEY: SECRET_KEY },
    );
    expectError(half, 503, "payment_provider_unavailable");
  });

  it("needs a live key: a test-mode key is refused with 403 forbidden, no key with 401", async () => {
    const t = await newTenant({ mode: "test" });
    expectError(await startCheckout(t.api_key), 403, "forbidden");
    const anonymous = { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" };
    expectError(await callConfigured("/v1/credits/checkout", anonymous), 401, "unauthorized");
    expect(stripe.requests).toHaveLength(0);
  });

  it.each([
    [{ amount: 499 }, "/amount"],
    [{ amount: 1_000_001 }, "/amount"],
    [{ amount: 10.5 }, "/amount"],
    [{ amount: 1000, currency: "eur" }, "/currency"],
    [{ amount: 1000, success_url: "javascript:alert(1)" }, "/success_url"],
    [{ amount: 1000, extra: true }, "/extra"],
    [{}, "/amount"],
  ])("refuses %j with 422 at %s before calling Stripe", async (body, param) => {
    const t = await newTenant();
    expectError(await startCheckout(t.api_key, body), 422, "invalid_request", param);
    expect(stripe.requests).toHaveLength(0);
  });

  it("grants the credits once per verified payment, whatever Stripe repeats", async () => {
    const t = await newTenant({ credits: "10" });
    const started = await startCheckout(t.api_key, { amount: 1250 });
    expect(started.status).toBe(201);
    expect(started.json).toMatchObject({
      object: "checkout",
      provider: "stripe",
      amount: 1250,
      currency: "usd",
      credits: "1250",
    });
    expect(started.json.url).toBe(stripe.sessions.get(started.json.id)?.url);
    // Without PUBLIC_BASE_URL override the return URLs lead back to the console's credits page.
    expect(stripe.requests[0]?.form.get("success_url")).toBe(
      `${env.PUBLIC_BASE_URL}/console/credits?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
    );
    expect((await ledger(t.tenant_id)).balance).toBe("10");

    const paid = stripe.event("checkout.session.completed", started.json.id, { status: "complete", payment_status: "paid" });
    const first = await deliver(paid);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ received: true, outcome: "granted" });
    expect((await ledger(t.tenant_id)).balance).toBe("1260");

    // The same event again (Stripe retries), and the same event re-signed later: nothing more.
    expect((await deliver(paid)).json).toEqual({ received: true, outcome: "already_granted" });
    expect((await deliver(paid, await stripe.signature(paid, Math.floor(Date.now() / 1000) - 60))).json.outcome).toBe(
      "already_granted",
    );
    // Another event about the same session: nothing more either.
    const again = stripe.event("checkout.session.async_payment_succeeded", started.json.id, { payment_status: "paid" });
    expect((await deliver(again)).json.outcome).toBe("already_granted");

    const l = await ledger(t.tenant_id);
    expect(l.balance).toBe("1260");
    expect(l.recomputed.granted).toBe(l.totals.granted);
    const grants = await accountFor(env, t.tenant_id).grants(10);
    expect(grants.filter((g) => g.source === `stripe:${started.json.id}`)).toHaveLength(1);
    const [checkout] = await accountFor(env, t.tenant_id).checkouts(10);
    expect(checkout).toMatchObject({
      checkout_id: started.json.id,
      status: "paid",
      credits: "1250",
      created_by: `api_key:${t.key_id}`,
    });
    const audit = await listAudit(env, t.tenant_id, { limit: 10 });
    expect(audit.entries.map((e) => e.action).slice(0, 2)).toEqual(["credits.purchase", "credits.checkout"]);
    expect(audit.entries[0]?.actor).toEqual({ type: "operator", id: "payments:stripe" });
  });

  it("refuses a bad or stale signature with 400 and grants nothing", async () => {
    const t = await newTenant({ credits: "1" });
    const started = await startCheckout(t.api_key);
    const paid = stripe.event("checkout.session.completed", started.json.id, { payment_status: "paid" });
    const forged = await deliver(paid, await stripe.signature(paid, undefined, "whsec_not_the_endpoint_secret"));
    expect(forged.status).toBe(400);
    expect(forged.json.received).toBe(false);
    expect((await deliver(paid, await stripe.signature(paid, Math.floor(Date.now() / 1000) - 600))).status).toBe(400);
    const unsigned = await callConfigured("/webhooks/payments/stripe", { method: "POST", body: paid });
    expect(unsigned.status).toBe(400);
    expect((await ledger(t.tenant_id)).balance).toBe("1");
  });

  it("waits for a delayed payment, and grants nothing for a paid amount that differs or a session not ours", async () => {
    const t = await newTenant({ credits: "1" });
    const started = await startCheckout(t.api_key, { amount: 2000 });
    const id = started.json.id;
    expect((await deliver(stripe.event("checkout.session.completed", id, { payment_status: "unpaid" }))).json.outcome).toBe(
      "ignored",
    );
    expect((await ledger(t.tenant_id)).balance).toBe("1");

    const cheaper = stripe.event("checkout.session.async_payment_succeeded", id, { payment_status: "paid", amount_total: 100 });
    expect((await deliver(cheaper)).json.outcome).toBe("amount_mismatch");
    expect((await ledger(t.tenant_id)).balance).toBe("1");

    const foreign = stripe.event("checkout.session.completed", id, {
      payment_status: "paid",
      client_reference_id: null,
      metadata: {},
    });
    expect((await deliver(foreign)).json.outcome).toBe("unknown_checkout");

    const paid = stripe.event("checkout.session.async_payment_succeeded", id, { payment_status: "paid" });
    expect((await deliver(paid)).json.outcome).toBe("granted");
    expect((await ledger(t.tenant_id)).balance).toBe("2001");
  });

  it("closes an expired checkout, which can then no longer be granted twice or closed again", async () => {
    const t = await newTenant({ credits: "1" });
    const started = await startCheckout(t.api_key);
    expect((await deliver(stripe.event("checkout.session.expired", started.json.id, { status: "expired" }))).json.outcome).toBe(
      "closed",
    );
    expect((await deliver(stripe.event("checkout.session.expired", started.json.id))).json.outcome).toBe("not_open");
    const [checkout] = await accountFor(env, t.tenant_id).checkouts(1);
    expect(checkout?.status).toBe("expired");
  });

  it("acknowledges events it has no use for", async () => {
    const body = JSON.stringify({ id: "evt_x", type: "customer.created", data: { object: { id: "cus_1" } } });
    expect((await deliver(body)).json).toEqual({ received: true, outcome: "ignored" });
  });

  it("passes Stripe's refusal on: 503 for a refused key, retryable billing_failed for its outage, and records nothing", async () => {
    const t = await newTenant();
    stripe.failNext(401, { type: "invalid_request_error", message: "Invalid API Key provided: sk_test_****" });
    expectError(await startCheckout(t.api_key), 503, "payment_provider_unavailable");
    stripe.failNext(503, { type: "api_error", message: "Service unavailable." });
    const outage = expectError(await startCheckout(t.api_key), 500, "billing_failed");
    expect(outage.retryable).toBe(true);
    expect(await accountFor(env, t.tenant_id).checkouts(10)).toEqual([]);
  });
});
