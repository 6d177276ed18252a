/**
 * Credits (owners, `billing:manage`): the balance, every grant with its source, recent purchases,
 * and buying credits through the configured payment provider's hosted checkout. Credits arrive
 * when the provider's signed webhook confirms the payment; without a provider the page says so.
 */
import type { Context, Hono } from "hono";
import { raw } from "hono/html";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../../errors/api-error";
import {
  creditsOverview,
  formatMoney,
  MAX_UNITS,
  MIN_UNITS,
  minorPerUnit,
  type PriceTable,
  requirePayments,
  startCheckout,
} from "../../services/payments";
import { auditFields } from "../../services/people";
import { acting } from "../acting";
import type { ConsoleEnv } from "../context";
import { csrfField } from "../csrf";
import { type Flash, takeFlash } from "../flash";
import { formField } from "../form-body";
import { Layout } from "../layout";
import { refusal } from "../refusal";
import { render } from "../render";
import { when } from "../secret-once";
import { requireRole } from "../session";
import { TableHead } from "../table";

/** What a grant's source means, for people. */
function sourceText(source: string): string {
  const [kind, ref] = source.split(/:(.*)/s);
  if (kind === "stripe" && ref) return `Purchase (Stripe ${ref})`;
  if (source === "opening_balance") return "Opening balance";
  return source;
}

/** The provider and prices, or why buying is off (shown instead of the form). */
function payments(c: Context<ConsoleEnv>): { ok: true; name: string; prices: PriceTable } | { ok: false; reason: string } {
  try {
    const { provider, prices } = requirePayments(c.env);
    return { ok: true, name: provider.name, prices };
  } catch (e) {
    if (e instanceof ApiError && e.code === "payment_provider_unavailable") return { ok: false, reason: e.message };
    throw e;
  }
}

const RETURN_FLASH: Record<string, Flash> = {
  success: {
    kind: "ok",
    text: "Payment submitted. The credits are added as soon as the payment provider confirms it, usually within seconds: reload this page.",
  },
  canceled: { kind: "error", text: "The payment was canceled; nothing was charged." },
};

async function creditsPage(c: Context<ConsoleEnv>, flash?: Flash, status: ContentfulStatusCode = 200) {
  const member = c.get("member");
  const { balance, grants, checkouts } = await creditsOverview(c.env, member.tenant_id);
  const pay = payments(c);
  return render(
    c,
    <Layout title="Credits" member={member} active="credits" flash={flash}>
      <div class="cards">
        <div class="card">
          <div class="muted">Available</div>
          <div class="value" data-balance>
            {balance.available}
          </div>
        </div>
        <div class="card">
          <div class="muted">Held by running work</div>
          <div class="value">{balance.reserved}</div>
        </div>
      </div>

      <h2>Buy credits</h2>
      {pay.ok ? (
        <form class="stack" method="post" action="/console/credits/buy">
          {csrfField(c)}
          <label for="buy-currency">Currency</label>
          <select id="buy-currency" name="currency">
            {pay.prices.currencies.map((cur) => (
              <option value={cur}>
                {cur.toUpperCase()} — {pay.prices.creditsPerUnit.get(cur)?.toString()} credits per {cur.toUpperCase()}
              </option>
            ))}
          </select>
          <label for="buy-amount">Amount to pay (whole units of the currency)</label>
          <input id="buy-amount" name="amount" type="number" min={MIN_UNITS} max={MAX_UNITS} step={1} value={10} required />
          <button type="submit">Continue to payment</button>
          <p class="muted" style="margin:0">
            You pay on {pay.name === "stripe" ? "Stripe's" : "the provider's"} checkout page; the credits are granted once the
            payment is confirmed.
          </p>
        </form>
      ) : (
        <p class="card" data-payments="unavailable" role="note">
          {pay.reason}
        </p>
      )}

      <h2>Grants</h2>
      {grants.length === 0 ? (
        <p class="muted">No credits granted yet.</p>
      ) : (
        <div class="table-scroll">
          <table>
            <TableHead columns={["When", { label: "Credits", num: true }, "Source"]} />
            <tbody>
              {grants.map((g) => (
                <tr data-grant-id={g.grant_id} data-source={g.source}>
                  <td>{when(g.created_at)}</td>
                  <td class="num">{g.amount}</td>
                  <td>{sourceText(g.source)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {checkouts.length > 0 ? (
        <>
          <h2>Purchases</h2>
          <div class="table-scroll">
            <table>
              <TableHead columns={["Started", "By", { label: "Paid", num: true }, { label: "Credits", num: true }, "Status"]} />
              <tbody>
                {checkouts.map((k) => (
                  <tr data-checkout-id={k.checkout_id} data-status={k.status}>
                    <td>{when(k.created_at)}</td>
                    <td>{k.created_by}</td>
                    <td class="num">{formatMoney(k.amount, k.currency)}</td>
                    <td class="num">{k.credits}</td>
                    <td>
                      <span class="badge">{k.status === "open" ? "awaiting payment" : k.status}</span>
                      {k.completed_at ? <div class="muted">{when(k.completed_at)}</div> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </Layout>,
    status,
  );
}

async function field(c: Context<ConsoleEnv>, name: string): Promise<string> {
  const value = formField(c, name);
  return typeof value === "string" ? value.trim() : "";
}

export function register(app: Hono<ConsoleEnv>) {
  app.get("/credits", requireRole("billing:manage"), async (c) =>
    creditsPage(c, takeFlash(c) ?? RETURN_FLASH[c.req.query("checkout") ?? ""]),
  );

  app.post("/credits/buy", requireRole("billing:manage"), async (c) => {
    const currency = (await field(c, "currency")).toLowerCase() || undefined;
    const units = await field(c, "amount");
    try {
      if (!/^\d{1,9}(\.\d{1,2})?$/.test(units)) {
        throw new ApiError("invalid_request", `amount: enter a number of ${currency?.toUpperCase() ?? "currency units"}.`, {
          param: "amount",
          details: { errors: [{ loc: ["body", "amount"], reason: "must be a number" }] },
        });
      }
      const per = minorPerUnit(currency ?? "usd");
      const checkout = await startCheckout(
        c.env,
        c.get("member").tenant_id,
        { amount: Math.round(Number(units) * per), ...(currency ? { currency } : {}) },
        auditFields(acting(c)),
        { base_url: new URL(c.req.url).origin },
      );
      // A page, not a redirect: the console's form-action policy keeps form posts on this origin.
      return render(
        c,
        <Layout title="Continue to payment" member={c.get("member")} active="credits">
          <p>
            {formatMoney(checkout.amount, checkout.currency)} for <strong>{checkout.credits} credits</strong>.
          </p>
          <p>
            <a id="checkout-link" href={checkout.url} rel="noreferrer">
              Pay on the checkout page
            </a>
          </p>
          <script nonce={c.get("nonce")}>{raw(`location.assign(document.getElementById("checkout-link").href);`)}</script>
        </Layout>,
        201,
      );
    } catch (e) {
      // Without a provider the page says so already: the error page tells what to configure.
      if (e instanceof ApiError && e.code === "payment_provider_unavailable") throw e;
      const { flash, status } = refusal(c, e);
      return creditsPage(c, flash, status);
    }
  });
}
