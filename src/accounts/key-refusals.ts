/** The refusals of a key's limits, worded once for tasks, chat and the catalog. */
import { ApiError } from "../errors/api-error";
import { allowsCapability, allowsModel, type KeyLimits } from "./key-limits";

/**
 * 402 `insufficient_balance` with `details.reason: "key_spend_limit"`: the key's period has too
 * little left, or (`limitedBy`) that of a key that made it, whose limit bounds its whole family.
 */
export function keySpendLimitError(required: string, remaining: string, resetsAt: string | null, limitedBy?: string): ApiError {
  const whose = limitedBy ? `the key ${limitedBy} that made this key leaves its keys` : "this key may spend";
  return new ApiError(
    "insufficient_balance",
    `This request may cost up to ${required} credits; ${whose} ${remaining} more ${resetsAt ? `until ${resetsAt}` : "in total"}.`,
    {
      details: {
        reason: "key_spend_limit",
        required_credits: required,
        remaining_credits: remaining,
        resets_at: resetsAt,
        ...(limitedBy ? { limited_by_key_id: limitedBy } : {}),
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
