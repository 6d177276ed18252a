/**
 * The credits page (owners): balance, grants with their source, and buying through the payment
 * provider; without one the page says so and the buy action answers 503.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { accountFor } from "../../src/accounts/account-stub";
import { createApp } from "../../src/app";
import type { Env } from "../../src/env";
import { createFakeStripe, FAKE_STRIPE_BASE } from "../billing/fake-stripe";
import { admin, BASE } from "../helpers/api";
import { type Browser, freshEmail, inviteAndSignIn, signIn, tenantWithOwner } from "../helpers/console";

let tenant: { tenant_id: string };
let owner: Browser;
let developer: Browser;

beforeAll(async () => {
  const ownerEmail = freshEmail("owner");
  tenant = await tenantWithOwner(ownerEmail, "250");
  owner = await signIn(ownerEmail);
  developer = await inviteAndSignIn(owner, freshEmail("dev"), "developer");
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the credits page without a payment provider", () => {
  it("shows the balance and grants, says buying is unavailable, and the buy action answers 503", async () => {
    await admin(`/admin/v1/tenants/${tenant.tenant_id}/credits`, { amount: "50", source: "promo" });
    const page = await owner.get("/console/credits");
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/data-balance[^>]*>\s*300\s*</);
    expect(page.text).toContain('data-source="promo"');
    expect(page.text).toContain("Opening balance");
    expect(page.text).toContain('data-payments="unavailable"');
    expect(page.text).toContain("No payment provider is configured");
    expect(page.text).not.toContain('action="/console/credits/buy"');
    const buy = await owner.post("/console/credits/buy", { amount: "10", currency: "usd" });
    expect(buy.status).toBe(503);
    const json = await owner.request("/console/credits/buy", {
      method: "POST",
      body: new URLSearchParams({ amount: "10", _csrf: owner.csrf ?? "" }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE, Accept: "application/json" },
    });
    expect(JSON.parse(json.text).error.code).toBe("payment_provider_unavailable");
  });

  it("is for owners: a developer gets 403", async () => {
    expect((await developer.get("/console/credits")).status).toBe(403);
    expect((await developer.post("/console/credits/buy", { amount: "10" })).status).toBe(403);
  });
});

describe("the credits page with Stripe configured", () => {
  const stripe = createFakeStripe({ secretKey: "sk_test_console", webhookSecret: "whsec_console" });
  const configured = {
    ...env,
    PAYMENTS_STRIPE_SECRET_KEY: "sk_test_console",
    PAYMENTS_STRIPE_WEBHOOK_SECRET: "whsec_console",
    PAYMENTS_STRIPE_BASE_URL: FAKE_STRIPE_BASE,
  } as Env;
  const app = createApp();

  /** The browser's request, through the app with payments configured. */
  async function as(who: Browser, path: string, form?: Record<string, string>) {
    const headers = new Headers({ Cookie: [...who.cookies].map(([k, v]) => `${k}=${v}`).join("; "), Accept: "text/html" });
    let body: string | undefined;
    if (form) {
      headers.set("Content-Type", "application/x-www-form-urlencoded");
      headers.set("Origin", BASE);
      body = new URLSearchParams({ ...form, _csrf: who.csrf ?? "" }).toString();
    }
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`${BASE}${path}`, { method: form ? "POST" : "GET", headers, body }), configured, ctx);
    await waitOnExecutionContext(ctx);
    return { status: res.status, text: await res.text() };
  }

  it("an owner buys: the checkout page takes them to Stripe; the paid event grants once and shows in the history", async () => {
    const real = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation((input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      return url.startsWith(FAKE_STRIPE_BASE) ? stripe.fetch(input, init) : real(input, init);
    });
    const page = await as(owner, "/console/credits");
    expect(page.text).toContain('action="/console/credits/buy"');
    expect(page.text).toContain("100 credits per USD");
    const buy = await as(owner, "/console/credits/buy", { amount: "12", currency: "usd" });
    expect(buy.status, buy.text).toBe(201);
    const [session] = [...stripe.sessions.values()];
    expect(session).toMatchObject({ amount_total: 1200, currency: "usd", client_reference_id: tenant.tenant_id });
    expect(buy.text).toContain(`href="${session?.url}"`);
    expect(buy.text).toContain("1200 credits");

    const event = stripe.event("checkout.session.completed", session?.id as string, { payment_status: "paid" });
    for (let i = 0; i < 2; i++) {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`${BASE}/webhooks/payments/stripe`, {
          method: "POST",
          headers: { "Stripe-Signature": await stripe.signature(event) },
          body: event,
        }),
        configured,
        ctx,
      );
      expect(res.status).toBe(200);
    }
    const balance = await accountFor(env, tenant.tenant_id).balanceView();
    expect(balance?.available).toBe("1500");
    const after = await as(owner, "/console/credits");
    expect(after.text).toContain(`data-source="stripe:${session?.id}"`);
    expect(after.text.match(new RegExp(`data-source="stripe:${session?.id}"`, "g"))).toHaveLength(1);
    expect(after.text).toContain(`data-checkout-id="${session?.id}" data-status="paid"`);
  });

  it("refuses an amount outside the bounds with 422 and says why", async () => {
    const res = await as(owner, "/console/credits/buy", { amount: "2", currency: "usd" });
    expect(res.status).toBe(422);
    expect(res.text).toContain("must be an integer from 500 to 1000000");
  });
});
