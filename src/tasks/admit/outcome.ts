/** The task object's answer to a create, as the API answers it: the envelope, or the refusal it stands for. */
import { keySpendLimitError } from "../../accounts/key-refusals";
import { ApiError } from "../../errors/api-error";
import { refusalError } from "../../safety/review";
import type { Envelope } from "../../task-record/record";
import type { CreateResult } from "../task-answers";

export function outcome(result: CreateResult): { envelope: Envelope; replayed: boolean } {
  switch (result.kind) {
    case "created":
      return { envelope: result.envelope, replayed: false };
    case "replay":
      return { envelope: result.envelope, replayed: true };
    case "in_progress":
      throw new ApiError(
        "request_in_progress",
        "A request with this Idempotency-Key is still being admitted; retry shortly with the same key.",
        {
          retryAfter: 1,
        },
      );
    case "conflict":
      throw new ApiError(
        "idempotency_conflict",
        "This Idempotency-Key was used with a different request body; send changed work under a new key.",
        {
          details: { recovery: { action: "use_new_idempotency_key", requires_input_change: false, client_request_id: "new" } },
        },
      );
    case "rejected":
      throw refusalError(result.error);
    case "refused":
      if (result.code === "tenant_disabled") throw new ApiError("tenant_disabled", "The tenant of this key is disabled.");
      if (result.code === "key_spend_limit")
        throw keySpendLimitError(result.required, result.remaining, result.resets_at, result.limited_by);
      throw new ApiError(
        "insufficient_balance",
        `This task needs ${result.required} credits; the balance is ${result.balance}.`,
        {
          details: { balance: result.balance, required: result.required },
        },
      );
  }
}
