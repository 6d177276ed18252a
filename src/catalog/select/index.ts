/**
 * Validation of a request against model cards, and `auto` selection. A concrete model is checked
 * exactly as requested and never substituted; `auto` takes the best-ranked live card that
 * satisfies the whole request. Nothing here drops or changes a control.
 */
import { ApiError } from "../../errors/api-error";
import type { Capability } from "../schema";
import { type CatalogContext, interfacesOf, isOffered, isSelectable } from "../views";
import { checkCard } from "./card";
import type { CandidateFailure, Selection, SelectionRequest } from "./types";

export { unicodeLength } from "../prompt-length";
export { checkCard } from "./card";
export type {
  CandidateFailure,
  Canvas,
  MediaFacts,
  OutputFormat,
  RequestMedia,
  Selection,
  SelectionRequest,
} from "./types";

/** Resolves `model` for a capability: the concrete model as asked, or the `auto` choice. */
export function select(ctx: CatalogContext, req: SelectionRequest): Selection {
  const candidates = interfacesOf(ctx, req.capability);
  if (req.model !== "auto") {
    const found = candidates.find(({ model }) => model.model === req.model);
    if (found && isOffered(found.model, found.card) && !isSelectable(found.model, found.card, ctx.providers)) {
      throw noLiveRoute(found.model.model, req.capability);
    }
    if (!found || !isSelectable(found.model, found.card, ctx.providers)) {
      throw new ApiError(
        "unsupported_model",
        found
          ? `Model '${req.model}' is not available for ${req.capability}.`
          : `Model '${req.model}' does not offer ${req.capability}.`,
        {
          param: "/model",
          details: {
            supported_models: [
              "auto",
              ...candidates.filter((c) => isSelectable(c.model, c.card, ctx.providers)).map((c) => c.model.model),
            ],
          },
        },
      );
    }
    const { failures, selection } = checkCard(found.model, found.card, req, ctx.providers);
    const first = failures[0];
    if (first) {
      throw new ApiError(first.error, first.message, {
        param: first.param,
        details: { candidate_failures: failures.map(({ error: _e, ...f }) => f) },
      });
    }
    return selection;
  }
  const allFailures: CandidateFailure[] = [];
  for (const { model, card } of candidates) {
    if (!isOffered(model, card)) continue;
    if (req.allowModel && !req.allowModel(model.model)) {
      allFailures.push(notAllowedFailure(model.model));
      continue;
    }
    if (!isSelectable(model, card, ctx.providers)) {
      allFailures.push(noLiveRouteFailure(model.model, req.capability));
      continue;
    }
    const { failures, selection } = checkCard(model, card, req, ctx.providers);
    const over = failures.length === 0 ? (req.overCap?.(selection) ?? null) : null;
    const sick = failures.length === 0 && !over ? (req.unhealthy?.(selection) ?? null) : null;
    if (failures.length === 0 && !over && !sick) return selection;
    allFailures.push(over ?? sick ?? (failures[0] as CandidateFailure));
  }
  const sick = allFailures.filter((f) => f.code === "all_routes_unhealthy");
  if (sick.length > 0) {
    // Some model could serve the request but for its routes' health: worth retrying, unlike a 422.
    const retryAfter = Math.min(...sick.map((f) => (f.supported as { retry_after_seconds: number }).retry_after_seconds));
    throw new ApiError(
      "model_unavailable",
      `Every model that can honour this ${req.capability} request is failing right now; try again in ${retryAfter} s.`,
      {
        param: "/model",
        retryAfter,
        details: {
          reason: "all_routes_unhealthy",
          retry_after_seconds: retryAfter,
          candidate_failures: allFailures.map(({ error: _e, ...f }) => f),
        },
      },
    );
  }
  throw new ApiError("no_eligible_model", `No live model can honour this ${req.capability} request as sent.`, {
    param: allFailures[0]?.param,
    details: { candidate_failures: allFailures.map(({ error: _e, ...f }) => f) },
  });
}

/** A concrete model whose card is offered but that no configured provider serves for this caller. */
export function noLiveRoute(model: string, capability: Capability): ApiError {
  return new ApiError(
    "model_unavailable",
    `No provider configured on this deployment serves ${model} for ${capability} with this key; try again later or choose another model.`,
    { param: "/model", details: { model, reason: "no_live_route" } },
  );
}

/** A model the calling key's model list leaves out, as an `auto` candidate failure. */
export function notAllowedFailure(model: string): CandidateFailure {
  return {
    model,
    code: "not_allowed_for_key",
    param: "/model",
    message: `This API key may not use ${model}.`,
    error: "unsupported_option",
  };
}

/** The same reason as an `auto` candidate failure. */
export function noLiveRouteFailure(model: string, capability: Capability): CandidateFailure {
  return {
    model,
    code: "no_live_route",
    param: "/model",
    message: `No provider configured on this deployment serves ${model} for ${capability} with this key.`,
    error: "unsupported_option",
  };
}
