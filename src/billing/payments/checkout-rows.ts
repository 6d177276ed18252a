/**
 * The `checkouts` rows of an AccountObject: each purchase started with a payment provider, what
 * it was priced at, and whether its payment was granted. The row is the idempotency record of the
 * grant: a session is granted once, whatever the provider repeats.
 */

export type CheckoutStatus = "open" | "paid" | "expired" | "failed";

export type CheckoutView = {
  /** The provider's id of the hosted checkout (Stripe: `cs_…`). */
  checkout_id: string;
  provider: string;
  /** Credits the payment grants (decimal string). */
  credits: string;
  /** In the currency's minor unit (cents). */
  amount: number;
  currency: string;
  status: CheckoutStatus;
  created_by: string;
  created_at: string;
  completed_at: string | null;
  /** The provider's event that completed it. */
  event_id: string | null;
  grant_id: string | null;
};

export const CHECKOUTS_TABLE_SQL = `
  CREATE TABLE checkouts (
    checkout_id TEXT PRIMARY KEY, provider TEXT NOT NULL, credits TEXT NOT NULL, amount INTEGER NOT NULL,
    currency TEXT NOT NULL, status TEXT NOT NULL, created_by TEXT NOT NULL, created_at TEXT NOT NULL,
    completed_at TEXT, event_id TEXT, grant_id TEXT);
  CREATE INDEX checkouts_by_created ON checkouts (created_at DESC, checkout_id DESC);
`;

const COLUMNS =
  "checkout_id, provider, credits, amount, currency, status, created_by, created_at, completed_at, event_id, grant_id";

export function checkoutRow(sql: SqlStorage, checkoutId: string): CheckoutView | null {
  return sql.exec<CheckoutView>(`SELECT ${COLUMNS} FROM checkouts WHERE checkout_id = ?`, checkoutId).toArray()[0] ?? null;
}

export function checkoutRows(sql: SqlStorage, limit: number): CheckoutView[] {
  return sql
    .exec<CheckoutView>(`SELECT ${COLUMNS} FROM checkouts ORDER BY created_at DESC, checkout_id DESC LIMIT ?`, limit)
    .toArray();
}

export function insertCheckout(
  sql: SqlStorage,
  c: Pick<CheckoutView, "checkout_id" | "provider" | "credits" | "amount" | "currency" | "created_by">,
  at: string,
): void {
  sql.exec(
    `INSERT INTO checkouts (checkout_id, provider, credits, amount, currency, status, created_by, created_at)
     VALUES (?, ?, ?, ?, ?, 'open', ?, ?) ON CONFLICT (checkout_id) DO NOTHING`,
    c.checkout_id,
    c.provider,
    c.credits,
    c.amount,
    c.currency,
    c.created_by,
    at,
  );
}

export function markCheckout(
  sql: SqlStorage,
  checkoutId: string,
  status: Exclude<CheckoutStatus, "open">,
  at: string,
  eventId: string | null,
  grantId: string | null,
): void {
  sql.exec(
    "UPDATE checkouts SET status = ?, completed_at = ?, event_id = ?, grant_id = ? WHERE checkout_id = ?",
    status,
    at,
    eventId,
    grantId,
    checkoutId,
  );
}

/** What a provider's "paid" event did to a tenant's ledger. */
export type PaymentOutcome =
  | { outcome: "granted"; grant_id: string; credits: string; balance: string }
  /** Granted before (a replayed or duplicated event, or a second event for the same session). */
  | { outcome: "already_granted"; grant_id: string | null }
  /** Not a checkout this tenant started here (another product on the same provider account). */
  | { outcome: "unknown_checkout" }
  /** Paid, but not what was asked: nothing is granted, and the row says so. */
  | { outcome: "amount_mismatch"; expected: { amount: number; currency: string } };
