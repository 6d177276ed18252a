/**
 * Binding quotes, one code for every door: the create's whole validation, media and selection,
 * priced as the create would reserve it, with nothing reserved or started; kept in the tenant's
 * AccountObject for 15 minutes (docs/spend-controls.md).
 */

import { accountFor } from "../accounts/account-stub";
import { QUOTE_TTL_MS, type QuoteLine, type QuoteRecord } from "../accounts/quote-rows";
import { loadCatalog } from "../catalog/store";
import { ApiError } from "../errors/api-error";
import { healthView } from "../health/snapshot";
import { dec, fmt } from "../lib/decimal";
import { newId } from "../lib/ids";
import { OPERATIONS } from "../operations";
import type { OperationSpec } from "../operations/types";
import { BYOK_FEE_METER } from "../provider-keys/fee";
import { tenantKeyPlans } from "../provider-keys/routing";
import { liveProviders } from "../providers/routing";
import { type AdmissionContext, type CommonFields, checkCallback, priceRequest } from "../tasks/admit";
import { requestHash } from "../tasks/idempotency";
import type { Quote } from "./contracts/quote";

/** The operation a quote names, by its capability; 422 at `/operation` when there is none. */
export function quotedOperation(operation: string): OperationSpec {
  const spec = OPERATIONS.find((s) => s.capability === operation);
  if (!spec) {
    throw new ApiError("invalid_request", `'${operation}' is not an operation that can be quoted.`, {
      param: "/operation",
      details: {
        errors: [{ loc: ["body", "operation"], reason: "not a task-creating capability" }],
        supported: OPERATIONS.map((s) => s.capability),
      },
    });
  }
  return spec;
}

export function quoteView(q: QuoteRecord): Quote {
  return {
    object: "quote",
    quote_id: q.quote_id,
    operation: q.operation,
    resolved_model: q.resolved_model,
    credits: q.credits,
    lines: q.lines,
    expires_at: new Date(q.expires_at).toISOString(),
    created_at: q.created_at,
  };
}

/**
 * Quotes `body` (already parsed by the operation's schema; `raw` as sent) for the caller. Content
 * review is left to the create: a quote sends nothing anywhere.
 */
export async function createQuote(
  ctx: Omit<AdmissionContext, "idempotencyKey">,
  spec: OperationSpec,
  body: CommonFields,
  raw: Record<string, unknown>,
): Promise<Quote> {
  if (raw.quote_id !== undefined) {
    throw new ApiError("invalid_request", "A quoted request cannot itself carry a quote_id.", {
      param: "/quote_id",
      details: { errors: [{ loc: ["body", "quote_id"], reason: "not allowed in a quoted request" }] },
    });
  }
  const admission = { ...ctx, idempotencyKey: undefined };
  await checkCallback(admission, body);
  // The create's own inputs to its route choice: the tenant's provider keys and route health, so
  // the quote prices the route the create would take (or refuses as it would), never another.
  const providers = liveProviders(ctx.env, ctx.caller.mode);
  const [bundle, keys, health] = await Promise.all([
    loadCatalog(ctx.env.CATALOG),
    tenantKeyPlans(ctx.env, ctx.caller),
    healthView(ctx.env, providers),
  ]);
  const priced = await priceRequest(admission, spec, body, raw, { bundle, providers, keys, health });
  // With a `models` list the quote's lines are the dearest listed model's: the one its credits stand for.
  const lined = priced.dearestModel ?? priced;
  const meters = lined.meters[lined.dearest] ?? [];
  const route = lined.routes[lined.dearest];
  const cardLines: QuoteLine[] = meters.map((m) => {
    const quantity = lined.quantities[m.usage_key] ?? 0;
    return {
      meter: m.meter,
      quantity: String(quantity),
      unit: m.unit,
      unit_credits: m.unit_credits,
      credits: fmt(dec(m.unit_credits).times(String(quantity))),
    };
  });
  // On the tenant's own key the card's meters are not billed, only the fee on them: as the task's usage lines.
  const lines = route?.key === "tenant" ? tenantKeyQuoteLines(cardLines, route.fee_percent ?? "0") : cardLines;
  const now = Date.now();
  const record: QuoteRecord = {
    quote_id: newId("quo"),
    mode: ctx.caller.mode,
    operation: spec.capability,
    request_hash: await requestHash(spec.name, raw),
    resolved_model: priced.selection.model.model,
    credits: priced.estimate,
    lines,
    created_at: new Date(now).toISOString(),
    expires_at: now + QUOTE_TTL_MS,
    used_by: null,
    used_at: null,
  };
  return quoteView(await accountFor(ctx.env, ctx.caller.tenant_id).saveQuote(record));
}

/**
 * A quote's lines on a tenant's route: each meter at its card price (the unit prices a create may
 * not exceed) with nothing billed, then the fee, `quantity` being the card price it is a share of.
 */
function tenantKeyQuoteLines(lines: QuoteLine[], feePercent: string): QuoteLine[] {
  const cardPrice = lines.reduce((acc, l) => acc.plus(l.credits), dec(0));
  const share = dec(feePercent).div(100);
  return [
    ...lines.map((l) => ({ ...l, credits: "0" })),
    {
      meter: BYOK_FEE_METER,
      quantity: fmt(cardPrice),
      unit: "credits",
      unit_credits: fmt(share),
      credits: fmt(cardPrice.times(share)),
    },
  ];
}
