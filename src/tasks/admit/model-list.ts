/**
 * A create's `models` list at admission: each model is validated, checked against the key and the
 * cap, routed and priced in the caller's order. The first that fits serves; those before it are
 * reported as passed over; those after it stay with the task, so that it can move to them if its
 * model's upstreams fail (src/tasks/steps/model-fallback.ts). Nothing is reserved for a request
 * that no listed model can serve.
 */
import { allowsModel, type KeyLimits } from "../../accounts/key-limits";
import { type CandidateFailure, notAllowedFailure } from "../../catalog/select";
import { ApiError } from "../../errors/api-error";
import { dec } from "../../lib/decimal";
import type { ModelFallback } from "../../routing/models-list";

/** A listed model at admission: priced (it fits) or its reason not to. */
export type ListedModel<P> = { model: string; priced: P; failure?: undefined } | { model: string; failure: CandidateFailure };

/** A refusal of one model as a `candidate_failures` entry: the failure it names, or the error's own code. */
export function failureOf(model: string, index: number, e: ApiError): CandidateFailure {
  const details = (e.details ?? {}) as { candidate_failures?: CandidateFailure[]; reason?: string; retry_after_seconds?: number };
  const named = details.candidate_failures?.find((f) => f.model === model) ?? details.candidate_failures?.[0];
  const param = (p: string | undefined) => (p === undefined || p === "/model" ? `/models/${index}` : p);
  if (named) return { ...named, model, param: param(named.param), error: "unsupported_option" };
  return {
    model,
    code: details.reason ?? e.code,
    param: param(e.param),
    message: e.message,
    ...(details.retry_after_seconds !== undefined ? { supported: { retry_after_seconds: details.retry_after_seconds } } : {}),
    error: "unsupported_option",
  };
}

/** Each listed model, in order, fitted by `fit` (which throws the refusal a single model would get). */
export function fitListed<P extends { estimate: string }>(
  models: readonly string[],
  limits: KeyLimits | null | undefined,
  cap: string | undefined,
  tryModel: (model: string) => P,
): ListedModel<P>[] {
  return models.map((model, i) => {
    if (!allowsModel(limits, model)) return { model, failure: { ...notAllowedFailure(model), param: `/models/${i}` } };
    try {
      const priced = tryModel(model);
      if (cap !== undefined && dec(priced.estimate).gt(cap)) {
        return {
          model,
          failure: {
            model,
            code: "over_max_credits",
            param: "/max_credits",
            message: `${model} may cost up to ${priced.estimate} credits, above max_credits (${cap}).`,
            received: cap,
            supported: { estimate_credits: priced.estimate },
            error: "invalid_request",
          },
        };
      }
      return { model, priced };
    } catch (e) {
      if (e instanceof ApiError) return { model, failure: failureOf(model, i, e) };
      throw e;
    }
  });
}

/** The refusal when no listed model fits: 503 when some only wait for their routes to recover, else 422. */
export function noListedModel(capability: string, listed: ListedModel<unknown>[]): ApiError {
  const failures = listed.flatMap((l) => (l.failure ? [l.failure] : []));
  const entries = failures.map(({ error: _e, ...f }) => f);
  const sick = failures.filter((f) => f.code === "all_routes_unhealthy");
  if (sick.length > 0) {
    const retryAfter = Math.min(
      ...sick.map((f) => (f.supported as { retry_after_seconds?: number } | undefined)?.retry_after_seconds ?? 30),
    );
    return new ApiError(
      "model_unavailable",
      `Every listed model that can honour this ${capability} request is failing right now; try again in ${retryAfter} s.`,
      {
        param: "/models",
        retryAfter,
        details: { reason: "all_routes_unhealthy", retry_after_seconds: retryAfter, candidate_failures: entries },
      },
    );
  }
  return new ApiError("no_eligible_model", `None of the listed models can honour this ${capability} request as sent.`, {
    param: failures[0]?.param ?? "/models",
    details: { candidate_failures: entries },
  });
}

/** The models passed over before the one that serves, as the envelope reports them. */
export function passedOver(listed: ListedModel<unknown>[], upTo: number, now: number): ModelFallback[] {
  return listed
    .slice(0, upTo)
    .flatMap((l) =>
      l.failure ? [{ model: l.model, reason: l.failure.code, at: new Date(now).toISOString(), message: l.failure.message }] : [],
    );
}
