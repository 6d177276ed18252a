/**
 * A create's `deadline_seconds`: how long the task may run before it ends with `model_timeout`,
 * from the model card's `timing.min_deadline_seconds` (shorter would fail most jobs of the model)
 * to the service's MAX_DEADLINE_SECONDS. Omitted: the capability's default (deadlines.ts).
 */
import { z } from "@hono/zod-openapi";
import type { Capability } from "../catalog/schema";
import type { CandidateFailure, Selection } from "../catalog/select";
import { ApiError } from "../errors/api-error";
import { deadlineSeconds, MAX_DEADLINE_SECONDS } from "./deadlines";

export const DeadlineSecondsField = z
  .number()
  .int()
  .min(1)
  .max(MAX_DEADLINE_SECONDS)
  .openapi({
    description: `Seconds the task may run before it ends failed with \`model_timeout\` (its \`deadline_at\`): at least the model card's \`timing.min_deadline_seconds\`, at most ${MAX_DEADLINE_SECONDS}. Default: the capability's own deadline. \`auto\` passes over models whose minimum is longer.`,
    example: 300,
  });

/** Why `selection`'s card cannot take this deadline (it is shorter than the card's minimum); null when it can. */
export function deadlineFailure(selection: Selection, asked: number | undefined): CandidateFailure | null {
  const minimum = selection.card.timing?.min_deadline_seconds;
  if (asked === undefined || minimum === undefined || asked >= minimum) return null;
  return {
    model: selection.model.model,
    code: "deadline_too_short",
    param: "/deadline_seconds",
    message: `${selection.model.model} needs a deadline_seconds of at least ${minimum} for ${selection.card.capability}.`,
    received: asked,
    supported: { minimum_seconds: minimum, maximum_seconds: MAX_DEADLINE_SECONDS },
    error: "invalid_request",
  };
}

/** A concrete model's refusal of the deadline: 422 `invalid_request` at /deadline_seconds. */
export function checkDeadline(selection: Selection, asked: number | undefined): void {
  const failure = deadlineFailure(selection, asked);
  if (!failure) return;
  throw new ApiError("invalid_request", failure.message, {
    param: failure.param,
    details: {
      ...(failure.supported as Record<string, number>),
      errors: [
        {
          loc: ["body", "deadline_seconds"],
          reason: `below the model's minimum of ${(failure.supported as { minimum_seconds: number }).minimum_seconds} seconds`,
        },
      ],
    },
  });
}

/** The task's deadline in seconds: the one asked for, or the capability's default. */
export function planDeadline(capability: Capability, asked: number | undefined): number {
  return asked ?? deadlineSeconds(capability);
}
