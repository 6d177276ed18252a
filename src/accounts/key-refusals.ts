/** The refusals of a key's limits, worded once for tasks, chat and the catalog. */
import { ApiError } from "../errors/api-error";
import { allowsCapability, allowsModel, type KeyLimits } from "./key-limits";

/** 402 `insufficient_balance` with `details.reason: "key_spend_limit"`: the key's period has too little left. */
export function keySpendLimitError(required: string, remaining: string, resetsAt: string | null): ApiError {
  return new ApiError(
    "insufficient_balance",
    `This request may cost up to ${required} credits; this key may spend ${remaining} more ${resetsAt ? `until ${resetsAt}` : "in total"}.`,
    {
      details: {
        reason: "key_spend_limit",
        required_credits: required,
        remaining_credits: remaining,
        resets_at: resetsAt,
      },
    },
  );
}

/** 403 when the key's capability list leaves this capability out. */
export function checkCapabilityAllowed(limits: KeyLimits | null | undefined, capability: string): void {
  if (allowsCapability(limits, capability)) return;
  throw new ApiError("forbidden", `This API key may not use ${capability}.`, {
    param: "/model",
    details: { reason: "capability_not_allowed", capability, allowed_capabilities: limits?.capabilities ?? [] },
  });
}

/** 403 when a concrete model is outside the key's model list. */
export function checkModelAllowed(limits: KeyLimits | null | undefined, model: string): void {
  if (model === "auto" || allowsModel(limits, model)) return;
  throw new ApiError("forbidden", `This API key may not use model '${model}'.`, {
    param: "/model",
    details: { reason: "model_not_allowed", model, allowed_models: limits?.models ?? [] },
  });
}
