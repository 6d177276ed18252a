/**
 * What purchases ask of the tenant's account object: its checkouts (the credits they grant land in its ledger). The account object
 * implements it (src/accounts/account-rpc.ts); callers reach it with `accountSlice` (src/tenancy/account-slice.ts).
 */
import type { AuditInput } from "../../audit/audit-store";
import type { CheckoutView, PaymentOutcome } from "./checkout-rows";

export interface CheckoutsAccountSlice {
  recordCheckout(
    c: Pick<CheckoutView, "checkout_id" | "provider" | "credits" | "amount" | "currency" | "created_by">,
    audit?: AuditInput,
  ): boolean;
  completeCheckout(
    p: { checkout_id: string; provider: string; event_id: string; amount: number; currency: string },
    audit?: AuditInput,
  ): PaymentOutcome;
  closeCheckout(checkoutId: string, provider: string, status: "expired" | "failed", eventId: string): boolean;
  checkouts(limit: number): CheckoutView[];
}
