import { type AuditInput, appendAudit, writeAudited } from "../../audit/audit-store";
import type { AccountContext } from "../../tenancy/account-context";
import { readTenant } from "../../tenancy/tenant-row";
import { type CheckoutView, checkoutRow, checkoutRows, insertCheckout, markCheckout, type PaymentOutcome } from "./checkout-rows";

/** The tenant's hosted checkouts (`checkouts`): each one the idempotency record of the grant its payment makes. */
/** The ledger as a completed checkout needs it: a grant of credits, then the balance (the ledger store). */
export interface CreditGrants {
  insertGrant(amount: string, source: string, now: string): { grant_id: string; amount: string };
  balance(): string;
}

export class CheckoutStore {
  constructor(
    private readonly ctx: AccountContext,
    private readonly ledger: CreditGrants,
  ) {}

  /** A hosted checkout was created with a payment provider: remembered until its payment event. */
  record(
    c: Pick<CheckoutView, "checkout_id" | "provider" | "credits" | "amount" | "currency" | "created_by">,
    audit?: AuditInput,
  ): boolean {
    if (!readTenant(this.ctx.sql)) return false;
    const now = new Date().toISOString();
    writeAudited(this.ctx, audit, now, () => insertCheckout(this.ctx.sql, c, now));
    return true;
  }

  /**
   * A verified "paid" event of a checkout: grants its credits once, in the same write that marks
   * it paid, under the source `<provider>:<checkout id>`. Any repeat grants nothing.
   */
  complete(
    p: { checkout_id: string; provider: string; event_id: string; amount: number; currency: string },
    audit?: AuditInput,
  ): PaymentOutcome {
    const sql = this.ctx.sql;
    const row = checkoutRow(sql, p.checkout_id);
    if (!row || row.provider !== p.provider || !readTenant(sql)) return { outcome: "unknown_checkout" };
    if (row.status === "paid") return { outcome: "already_granted", grant_id: row.grant_id };
    if (row.amount !== p.amount || row.currency !== p.currency.toLowerCase()) {
      return { outcome: "amount_mismatch", expected: { amount: row.amount, currency: row.currency } };
    }
    const now = new Date().toISOString();
    const grant = this.ctx.transaction(() => {
      const g = this.ledger.insertGrant(row.credits, `${p.provider}:${p.checkout_id}`, now);
      markCheckout(sql, p.checkout_id, "paid", now, p.event_id, g.grant_id);
      if (audit) appendAudit(sql, { ...audit, details: { ...audit.details, grant_id: g.grant_id } }, now);
      return g;
    });
    return { outcome: "granted", grant_id: grant.grant_id, credits: grant.amount, balance: this.ledger.balance() };
  }

  /** A checkout that ended without payment (expired, or its delayed payment failed). */
  close(checkoutId: string, provider: string, status: "expired" | "failed", eventId: string): boolean {
    const row = checkoutRow(this.ctx.sql, checkoutId);
    if (row?.provider !== provider || row.status !== "open") return false;
    markCheckout(this.ctx.sql, checkoutId, status, new Date().toISOString(), eventId, null);
    return true;
  }

  list(limit: number): CheckoutView[] {
    return checkoutRows(this.ctx.sql, limit);
  }
}
