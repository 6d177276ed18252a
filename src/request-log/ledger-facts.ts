/**
 * What the ledger tells the request log (docs/request-log.md, "The log and the bill"): every
 * charge, capture and release the account object settled, with the request it names. The log takes
 * its charges from these facts alone, so that it never shows a charge the ledger does not hold and
 * never misses one it does: an entry lost with its isolate is rebuilt from its facts (`recovered`).
 */
import { OPERATIONS } from "../operations/index";

export interface LedgerFact {
  /** The ledger row's id (a task's hold, a chat charge): re-sent facts count once. */
  charge_id: string;
  request_id: string;
  /** Decimal credits captured (0 for a release). */
  amount: string;
  /** Ms since the epoch: when the hold or charge was made (a rebuilt entry's time). */
  created_at: number;
  key_id: string | null;
  mode: "live" | "test";
  model: string | null;
  /** The usage report's capability (`chat_completion` for chat), null when unknown. */
  capability: string | null;
}

const PATHS = new Map<string, string>();
for (const op of OPERATIONS) if (!PATHS.has(op.capability)) PATHS.set(op.capability, op.path);

/** The route a rebuilt entry names: the create of its capability, or the chat route. */
export function routeOfCapability(capability: string | null): string {
  if (capability === "chat_completion") return "POST /v1/chat/completions";
  const path = capability ? PATHS.get(capability) : undefined;
  return path ? `POST ${path}` : "POST (unknown)";
}
