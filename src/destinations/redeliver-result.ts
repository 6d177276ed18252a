/** What "deliver again" answers; plain data the task object's RPC answers name. */
import type { DeliveryState } from "../task-record/delivery-state";

export type RedeliverResult =
  | { kind: "ok"; delivery: DeliveryState }
  | { kind: "not_succeeded" }
  | { kind: "test_mode" }
  | { kind: "no_destination" }
  | { kind: "unknown_destination"; destination_id: string };
