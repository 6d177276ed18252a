/**
 * Charges of chat calls admitted without a hold (src/chat/billing.ts), sent to the tenant's
 * account object in batches: one RPC and one write for every call an isolate settled within
 * BATCH_WINDOW_MS (at most BATCH_MAX), instead of one each. Each charge keeps its own ledger row
 * and id, so a repeated batch charges nothing twice; the usage report gets one row per model of
 * the batch, counting its calls.
 *
 * A batch is sent, and awaited, by one request: the one whose timer opened it, or the one that
 * filled it. The Workers runtime ties promises and timers to the request that made them, so the
 * other requests of the batch do not wait on it: they are told through `written`, plain code that
 * touches no I/O (the isolate's balance view).
 *
 * Exactness: every charge is applied as far as the balance goes, in order, in one transaction,
 * so the ledger never goes negative and its rows always add up to its totals. A charge waiting in
 * a batch stays counted in the isolate's in-flight sum until the batch is written, so admission
 * never sees the balance as larger than it will be. A batch lost with its isolate (it died within
 * the window) is not charged, as a hold given back by its lease would not be (docs/scaling.md).
 */
import type { Settlement } from "../accounts/ledger-answers";
import type { UsageNote } from "../accounts/usage";

export const BATCH_WINDOW_MS = 25;
export const BATCH_MAX = 64;

export interface ChargeItem {
  id: string;
  amount: string;
  usage?: UsageNote;
  /** The API key the call was made with (its spend is counted per key). */
  key_id?: string;
  /** The request whose charge it is: the ledger row names it, as the request log does. */
  request_id?: string;
}

export type ChargeResult = { settlement: Settlement; balance: string };

/** How a batch is written: the account's `chargeBatch`, with the caller's retries. */
export type SendBatch = (items: ChargeItem[]) => Promise<{ settlements: Settlement[]; balance: string }>;

interface Batch {
  items: ChargeItem[];
  /** Per item: told the outcome (null when the batch could not be written). */
  written: ((result: ChargeResult | null) => void)[];
}

/** Per isolate: each tenant's batch being gathered. */
const batches = new Map<string, Batch>();

/**
 * Puts `item` in the tenant's next batch. Resolves at once, unless this request is the one that
 * sends the batch: then once it is written (or given up). `send` is made by the calling request
 * (a Durable Object stub belongs to the request that makes it).
 */
export function chargeInBatch(
  tenantId: string,
  item: ChargeItem,
  send: SendBatch,
  written: (result: ChargeResult | null) => void,
): Promise<void> {
  const batch = batches.get(tenantId);
  if (!batch) {
    const opened: Batch = { items: [item], written: [written] };
    batches.set(tenantId, opened);
    // A timer belongs to the request that set it and cannot be cleared from another: a batch
    // sent early (full) leaves its timer to find it gone.
    return new Promise<void>((resolve) => {
      setTimeout(() => {
        if (batches.get(tenantId) !== opened) return resolve();
        batches.delete(tenantId);
        void write(opened, send).then(resolve);
      }, BATCH_WINDOW_MS);
    });
  }
  batch.items.push(item);
  batch.written.push(written);
  if (batch.items.length < BATCH_MAX) return Promise.resolve();
  batches.delete(tenantId);
  return write(batch, send);
}

async function write(batch: Batch, send: SendBatch): Promise<void> {
  let outcome: { settlements: Settlement[]; balance: string } | null = null;
  try {
    outcome = await send(batch.items);
  } catch {
    // Each item's owner is told below, and logs what it could not charge.
  }
  batch.written.forEach((tell, i) => {
    const settlement = outcome?.settlements[i];
    tell(outcome && settlement ? { settlement, balance: outcome.balance } : null);
  });
}
