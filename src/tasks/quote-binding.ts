/**
 * A create that carries `quote_id`: the quote must be the caller's (tenant and key mode), still
 * live, for this operation and this very body (the idempotency hash of the body without
 * `quote_id`), and not used by another task. Every refusal is 422 `invalid_request` at
 * `/quote_id`, its reason in `details.reason`.
 */

import { accountFor } from "../accounts/account-stub";
import type { QuoteRecord } from "../accounts/quote-rows";
import { ApiError } from "../errors/api-error";
import type { OperationSpec } from "../operations/types";
import type { AdmissionContext } from "./admit/context";
import { requestHash } from "./idempotency";

type QuoteRefusal = "quote_not_found" | "quote_expired" | "quote_mismatch" | "quote_used";

const MESSAGES: Record<QuoteRefusal, (id: string) => string> = {
  quote_not_found: (id) => `Quote '${id}' does not exist for this key's tenant and mode.`,
  quote_expired: (id) => `Quote '${id}' has expired; ask for a new one.`,
  quote_mismatch: (id) => `This body is not the request quote '${id}' was made for; quote it again or send the quoted body.`,
  quote_used: (id) => `Quote '${id}' was already used by another task (another Idempotency-Key); ask for a new one.`,
};

export function quoteRefusal(reason: QuoteRefusal, quoteId: string): ApiError {
  return new ApiError("invalid_request", MESSAGES[reason](quoteId), {
    param: "/quote_id",
    details: { reason, quote_id: quoteId, errors: [{ loc: ["body", "quote_id"], reason }] },
  });
}

/** The quote a create may run under, or the refusal; it is marked used only once the create is admitted (useQuote). */
export async function quoteFor(
  ctx: AdmissionContext,
  spec: OperationSpec,
  quoteId: string,
  raw: Record<string, unknown>,
): Promise<QuoteRecord> {
  const quote = await accountFor(ctx.env, ctx.caller.tenant_id).quote(quoteId);
  if (!quote || quote.mode !== ctx.caller.mode) throw quoteRefusal("quote_not_found", quoteId);
  const { quote_id: _q, ...quoted } = raw;
  if (quote.operation !== spec.capability || quote.request_hash !== (await requestHash(spec.name, quoted))) {
    throw quoteRefusal("quote_mismatch", quoteId);
  }
  if (quote.expires_at <= Date.now()) throw quoteRefusal("quote_expired", quoteId);
  return quote;
}

/**
 * Takes the quote for one task object (named by the tenant, mode and Idempotency-Key): a retry
 * under the same key takes it again; another key is refused with `quote_used`.
 */
export async function useQuote(ctx: AdmissionContext, quote: QuoteRecord, taskObject: string): Promise<void> {
  const use = await accountFor(ctx.env, ctx.caller.tenant_id).useQuote(quote.quote_id, ctx.caller.mode, taskObject);
  if (use === "used") throw quoteRefusal("quote_used", quote.quote_id);
  if (use === "expired") throw quoteRefusal("quote_expired", quote.quote_id);
  if (use === "not_found") throw quoteRefusal("quote_not_found", quote.quote_id);
}
