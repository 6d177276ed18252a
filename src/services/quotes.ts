/**
 * Binding quotes, one code for every door: the create's whole validation, media and selection,
 * priced as the create would reserve it, with nothing reserved or started; kept in the tenant's
 * AccountObject for 15 minutes (docs/spend-controls.md).
 */

import { QUOTE_TTL_MS, type QuoteLine, type QuoteRecord } from "../accounts/quote-rows";
import { accountFor } from "../accounts/service";
import { loadCatalog } from "../catalog/store";
import { ApiError } from "../errors/api-error";
import { dec, fmt } from "../lib/decimal";
import { newId } from "../lib/ids";
import { OPERATIONS } from "../operations";
import type { OperationSpec } from "../operations/types";
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
  const priced = await priceRequest(admission, spec, body, raw, {
    bundle: await loadCatalog(ctx.env.CATALOG),
    providers: liveProviders(ctx.env, ctx.caller.mode),
  });
  const meters = priced.meters[priced.dearest] ?? [];
  const lines: QuoteLine[] = meters.map((m) => {
    const quantity = priced.quantities[m.usage_key] ?? 0;
    return {
      meter: m.meter,
      quantity: String(quantity),
      unit: m.unit,
      unit_credits: m.unit_credits,
      credits: fmt(dec(m.unit_credits).times(String(quantity))),
    };
  });
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
