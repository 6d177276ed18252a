/**
 * A fake Stripe API for the tests, written from Stripe's API reference: `POST /v1/checkout/sessions`
 * (form-encoded, `Authorization: Bearer <secret key>`), its `{error: {type, message, param?, code?}}`
 * error bodies, and webhook events signed the way Stripe signs them
 * (`Stripe-Signature: t=<ts>,v1=<hex HMAC-SHA256 of "<ts>.<body>">`). Runs in the test's isolate:
 * hand `fetch` to the adapter, or route the Worker's fetch to it.
 */

export const FAKE_STRIPE_BASE = "https://stripe.fake";

export interface FakeSession {
  id: string;
  object: "checkout.session";
  mode: string;
  status: "open" | "complete" | "expired";
  payment_status: "unpaid" | "paid";
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string | null;
  url: string;
  line_items: { name: string; unit_amount: number; quantity: number }[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | null;
  contentType: string | null;
  form: URLSearchParams;
}

/** Stripe's minimum charge per currency (its "amount_too_small" refusal), for the currencies used here. */
const MINIMUM: Record<string, number> = { usd: 50, eur: 50, jpy: 50 };

function stripeError(status: number, error: { type: string; message: string; param?: string; code?: string }): Response {
  return Response.json({ error }, { status, headers: { "Request-Id": `req_${crypto.randomUUID().slice(0, 14)}` } });
}

function rid(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;
}

async function hex(secret: string, message: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(message)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function createFakeStripe(opts: { secretKey: string; webhookSecret: string }) {
  const sessions = new Map<string, FakeSession>();
  const requests: RecordedRequest[] = [];
  const queuedFailures: { status: number; error: { type: string; message: string; param?: string; code?: string } }[] = [];

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const form = new URLSearchParams(await req.text());
    requests.push({
      method: req.method,
      path: url.pathname,
      authorization: req.headers.get("Authorization"),
      contentType: req.headers.get("Content-Type"),
      form,
    });
    const failure = queuedFailures.shift();
    if (failure) return stripeError(failure.status, failure.error);
    if (req.headers.get("Authorization") !== `Bearer ${opts.secretKey}`) {
      return stripeError(401, { type: "invalid_request_error", message: "Invalid API Key provided: sk_test_****" });
    }
    if (req.method !== "POST" || url.pathname !== "/v1/checkout/sessions") {
      return stripeError(404, {
        type: "invalid_request_error",
        message: `Unrecognized request URL (${req.method}: ${url.pathname}).`,
      });
    }
    if (!/^application\/x-www-form-urlencoded/.test(req.headers.get("Content-Type") ?? "")) {
      return stripeError(400, { type: "invalid_request_error", message: "Invalid request: expected form-encoded parameters." });
    }
    const missing = (param: string) =>
      stripeError(400, {
        type: "invalid_request_error",
        message: `Missing required param: ${param}.`,
        param,
        code: "parameter_missing",
      });
    const mode = form.get("mode");
    if (!mode) return missing("mode");
    if (mode !== "payment") {
      return stripeError(400, { type: "invalid_request_error", message: "This fake only takes mode=payment.", param: "mode" });
    }
    const successUrl = form.get("success_url");
    if (!successUrl) return missing("success_url");
    const lineItems: FakeSession["line_items"] = [];
    let currency: string | null = null;
    for (let i = 0; form.has(`line_items[${i}][quantity]`); i++) {
      const p = `line_items[${i}][price_data]`;
      const itemCurrency = form.get(`${p}[currency]`);
      const unit = form.get(`${p}[unit_amount]`);
      const name = form.get(`${p}[product_data][name]`);
      if (!itemCurrency) return missing(`${p}[currency]`);
      if (!unit || !/^\d+$/.test(unit)) {
        return stripeError(400, {
          type: "invalid_request_error",
          message: "Invalid integer: unit_amount",
          param: `${p}[unit_amount]`,
        });
      }
      if (!name) return missing(`${p}[product_data][name]`);
      const min = MINIMUM[itemCurrency];
      if (min === undefined) {
        return stripeError(400, {
          type: "invalid_request_error",
          message: `Invalid currency: ${itemCurrency}.`,
          param: `${p}[currency]`,
        });
      }
      if (Number(unit) < min) {
        return stripeError(400, {
          type: "invalid_request_error",
          code: "amount_too_small",
          message: `The Checkout Session's total amount due must add up to at least ${min} ${itemCurrency}.`,
          param: `${p}[unit_amount]`,
        });
      }
      currency = itemCurrency;
      lineItems.push({ name, unit_amount: Number(unit), quantity: Number(form.get(`line_items[${i}][quantity]`)) });
    }
    if (lineItems.length === 0 || currency === null) return missing("line_items");
    const metadata: Record<string, string> = {};
    for (const [k, v] of form) {
      const m = /^metadata\[([^\]]+)\]$/.exec(k);
      if (m) metadata[m[1] as string] = v;
    }
    const id = rid("cs_test");
    const session: FakeSession = {
      id,
      object: "checkout.session",
      mode,
      status: "open",
      payment_status: "unpaid",
      amount_total: lineItems.reduce((s, l) => s + l.unit_amount * l.quantity, 0),
      currency,
      client_reference_id: form.get("client_reference_id"),
      metadata,
      success_url: successUrl,
      cancel_url: form.get("cancel_url"),
      url: `https://checkout.stripe.com/c/pay/${id}`,
      line_items: lineItems,
    };
    sessions.set(id, session);
    const { line_items: _items, ...wire } = session;
    return Response.json(wire);
  }

  /** An event as Stripe delivers it for a session (the session as it then is, with overrides). */
  function event(type: string, sessionId: string, overrides: Partial<FakeSession> = {}) {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    const { line_items: _items, ...wire } = session;
    const object = { ...wire, ...overrides };
    return JSON.stringify({
      id: rid("evt"),
      object: "event",
      api_version: "2025-01-27.acacia",
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      pending_webhooks: 1,
      type,
      data: { object },
    });
  }

  /** `Stripe-Signature` for a body, at a time (unix seconds), with this endpoint's secret or another. */
  async function signature(body: string, at = Math.floor(Date.now() / 1000), secret = opts.webhookSecret): Promise<string> {
    return `t=${at},v1=${await hex(secret, `${at}.${body}`)}`;
  }

  return {
    sessions,
    requests,
    event,
    signature,
    /** The next request gets this answer (a 5xx, a 429, a refused key…). */
    failNext(status: number, error: { type: string; message: string; param?: string; code?: string }) {
      queuedFailures.push({ status, error });
    },
    fetch: (input: RequestInfo | URL, init?: RequestInit) => handle(new Request(input, init)),
  };
}
