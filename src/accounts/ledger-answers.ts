/** What the account object's ledger answers: plain data, so callers need not import its store. */
import type { UsageNote } from "./usage";

export interface GrantView {
  grant_id: string;
  amount: string;
  source: string;
  created_at: string;
}

export type Settlement = {
  task_id: string;
  status: "open" | "captured" | "released";
  /** Held at admission. */
  reserved: string;
  /** Kept for good at success. */
  captured: string;
  /** Given back: the part of the reservation not captured. */
  refunded: string;
};

/** A hold refused: by the tenant's balance, its status, or the acting key's credit limit. */
export type ReserveRefusal =
  | { ok: false; code: "insufficient_balance" | "tenant_disabled"; balance: string; required: string }
  | {
      ok: false;
      code: "key_spend_limit";
      balance: string;
      required: string;
      /** What the key may still hold in its period. */
      remaining: string;
      /** When its period resets; null for a `total` limit. */
      resets_at: string | null;
      /** The key that made this one (or its ancestor) whose limit, over its whole family, refused the hold. */
      limited_by?: string;
    };

export type Totals = { granted: string; captured: string; reserved: string };

/** `request_id`: the request whose charge it is (the request log names it too). */
export type ChargeItem = { id: string; amount: string; usage?: UsageNote; key_id?: string; request_id?: string };
