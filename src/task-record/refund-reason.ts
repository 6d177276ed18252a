/** Why a task's credits were given back: the envelope's `billing.refund_reason` (docs/billing.md). */
import { dec } from "../lib/decimal";

/** What of a task record decides it (the record's own fields; declared here so the record can import this). */
interface RefundFacts {
  billing: { settled: boolean; refunded: string };
  status: string;
  error: { code: string; message?: string } | null;
}

/**
 * The failure's error code, `canceled`, or for a task that succeeded for less than its hold
 * `usage_below_estimate`; null while unsettled or when nothing was given back.
 */
export function refundReason(rec: RefundFacts): string | null {
  if (!rec.billing.settled || !dec(rec.billing.refunded).gt(0)) return null;
  if (rec.status === "canceled") return "canceled";
  if (rec.status === "failed") return rec.error?.code ?? "internal_error";
  return "usage_below_estimate";
}
