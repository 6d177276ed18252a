/** What a batch keeps of an item's task once it ended: from the task's final envelope. */
import type { Envelope } from "../task-record/record";
import type { ItemEnd } from "./batch-record";

export function itemEndOf(envelope: Envelope): ItemEnd {
  return {
    status: envelope.status as ItemEnd["status"],
    reserved: envelope.billing.charged_credits,
    refunded: envelope.billing.refunded_credits,
    error: envelope.error ?? null,
    output: envelope.output,
    usage: envelope.usage,
    billing: envelope.billing,
  };
}
