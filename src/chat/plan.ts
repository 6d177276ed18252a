/**
 * Which models and routes a chat call may use, in the order of docs/chat.md "Routing": the key's
 * lists → the request's `models` and `provider` preferences → the tenant's own keys → route health
 * → price. Each fitting model comes with its routes in the order they are tried and what it holds
 * (its dearest route's estimate, the BYOK fee on a tenant's route). A call that sends neither
 * `models` nor `provider` pays for none of it beyond one card and its routes.
 */
import type { CandidateFailure } from "../catalog/select";
import type { CatalogContext } from "../catalog/views";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { allRoutesUnhealthy, orderByHealth, unhealthyFailure } from "../health/route-order";
import type { HealthView } from "../health/snapshot";
import type { KeyMode } from "../keys/api-keys";
import { dec, fmt } from "../lib/decimal";
import { routeEstimate } from "../provider-keys/fee";
import { type ChatRoute, noChatUpstream } from "../providers/chat";
import type { ModelFallback } from "../routing/models-list";
import { applyPreferences, excludedByPreferences, hasPreferences, type ProviderPreferences } from "../routing/preferences";
import { estimateCredits, type TokenPrices, tokenPrices } from "./pricing";
import { chatRoutesOf, type TenantKeys } from "./routes";
import type { ChatCompletionRequest } from "./schema";
import { type ChatSelection, judgeChatModels, noEligibleModel, selectChatModel } from "./select";

const FREE: TokenPrices = { input: "0", output: "0", cache_read: "0", cache_write: "0", reasoning: "0" };

/**
 * The token prices of the route (its own, or the card's) in force when the call was admitted, so
 * the hold and the charge use one price even across a price change; nothing for a test-mode key.
 * The card's price: a tenant's route is charged its fee on it (src/provider-keys/fee.ts).
 */
export function routePrices(mode: KeyMode, selection: ChatSelection, route: ChatRoute, promptTokens: number, admittedAt: number) {
  if (mode === "test") return FREE;
  return tokenPrices(route.pricing ? { ...selection.card, pricing: route.pricing } : selection.card, promptTokens, admittedAt);
}

/** A model that may serve the call, its routes in the order they are tried. */
export interface ChatCandidate {
  selection: ChatSelection;
  routes: ChatRoute[];
  /** What the call holds for it: its dearest route's estimate. */
  estimate: string;
}

export interface ChatPlanInput {
  env: Env;
  mode: KeyMode;
  ctx: CatalogContext;
  /** The platform's live providers (ctx.providers adds the tenant's keys' providers). */
  platform: Set<string>;
  body: ChatCompletionRequest;
  promptTokens: number;
  admittedAt: number;
  allowModel?: (model: string) => boolean;
  tenant?: TenantKeys;
  /** Route health; null for test-mode calls, which run on the sandbox. */
  health: HealthView | null;
  prefs?: ProviderPreferences;
  cap?: string;
}

export interface ChatPlan {
  /** The models that may serve, in the order they are tried (one unless `models` was sent). */
  candidates: ChatCandidate[];
  /** The `models` passed over before each candidate, by the candidate's index. */
  passedOver: ModelFallback[][];
  /** What the call holds: the dearest candidate's estimate. */
  hold: string;
}

type Routed = { routes: ChatRoute[]; estimate: string } | { failure: CandidateFailure; retryAt?: number; excluded?: true };

function routed(input: ChatPlanInput, selection: ChatSelection): Routed {
  const { env, mode, body: _b, promptTokens, admittedAt, prefs, health, cap } = input;
  const model = selection.model.model;
  const estimateOf = (r: ChatRoute) =>
    routeEstimate(
      estimateCredits(
        routePrices(mode, selection, r, promptTokens, admittedAt),
        promptTokens,
        selection.maxCompletionTokens * (input.body.n ?? 1),
      ),
      r,
    );
  let routes = chatRoutesOf(env, selection.model, input.platform, input.tenant);
  if (routes.length === 0)
    return {
      failure: {
        model,
        code: "no_live_route",
        param: "/model",
        message: noChatUpstream(model).message,
        error: "unsupported_option",
      },
    };
  if (hasPreferences(prefs)) {
    const all = routes;
    routes = applyPreferences(routes, prefs, {
      price: (r) => Number(estimateOf(r)),
      latency: (r) => health?.route(r.provider, r.upstreamModel).p50_ms ?? null,
    });
    if (routes.length === 0)
      return {
        failure: excludedByPreferences(
          model,
          all.map((r) => r.provider),
        ),
        excluded: true,
      };
  }
  if (health) {
    const ordered = orderByHealth(routes, health, (r) => r.upstreamModel);
    if (ordered.retry_at !== null) return { failure: unhealthyFailure(model, ordered.retry_at), retryAt: ordered.retry_at };
    routes = ordered.routes;
  }
  // The dearest route: a failover never runs past the hold.
  let estimate = estimateOf(routes[0] as ChatRoute);
  for (let i = 1; i < routes.length; i++) {
    const e = estimateOf(routes[i] as ChatRoute);
    if (dec(e).gt(estimate)) estimate = e;
  }
  if (cap !== undefined && dec(estimate).gt(cap)) {
    return {
      failure: {
        model,
        code: "over_max_credits",
        param: "/max_credits",
        message: `${model} may cost up to ${estimate} credits, above max_credits (${cap}).`,
        received: cap,
        supported: { estimate_credits: estimate },
        error: "invalid_request",
      },
    };
  }
  return { routes, estimate };
}

/** 422 at /max_credits, before anything is held or sent, when the most the call can cost is above the cap. */
function overCap(estimate: string, cap: string, model: string): ApiError {
  return new ApiError(
    "invalid_request",
    `This call may cost up to ${estimate} credits on ${model}, above max_credits (${cap}).`,
    {
      param: "/max_credits",
      details: {
        estimate_credits: estimate,
        max_credits: fmt(dec(cap)),
        errors: [{ loc: ["body", "max_credits"], reason: `the estimate (${estimate} credits) is above it` }],
      },
    },
  );
}

export function planChat(input: ChatPlanInput, models?: readonly string[]): ChatPlan {
  const { ctx, body, promptTokens, allowModel } = input;
  const seen = new Map<string, Routed>();
  const route = (s: ChatSelection) => {
    let r = seen.get(s.model.model);
    if (!r) {
      r = routed(input, s);
      seen.set(s.model.model, r);
    }
    return r;
  };
  const routeCheck = (s: ChatSelection) => {
    const r = route(s);
    return "failure" in r ? r.failure : null;
  };
  if (models) {
    const judged = judgeChatModels(ctx, body, models, promptTokens, allowModel, routeCheck);
    const at = new Date(input.admittedAt).toISOString();
    const candidates: ChatCandidate[] = [];
    const passedOver: ModelFallback[][] = [];
    let before: ModelFallback[] = [];
    for (const j of judged) {
      if ("failure" in j) {
        before.push({ model: j.model, reason: j.failure.code, at, message: j.failure.message });
        continue;
      }
      const r = route(j.selection) as { routes: ChatRoute[]; estimate: string };
      candidates.push({ selection: j.selection, routes: r.routes, estimate: r.estimate });
      passedOver.push(before);
      before = [];
    }
    if (candidates.length === 0) {
      throw noEligibleModel(
        judged.map((j) => (j as { failure: CandidateFailure }).failure),
        "No model of `models` can honour this request as sent.",
      );
    }
    // The dearest fitting model: whichever serves, the hold covers it (each is within max_credits).
    const hold = candidates.reduce((m, c) => (dec(c.estimate).gt(m) ? c.estimate : m), candidates[0]?.estimate as string);
    return { candidates, passedOver, hold };
  }
  const selection = selectChatModel(ctx, body, promptTokens, allowModel, body.model === "auto" ? routeCheck : undefined);
  const r = route(selection);
  if ("failure" in r) {
    const model = selection.model.model;
    if (r.retryAt !== undefined) {
      const all = chatRoutesOf(input.env, selection.model, input.platform, input.tenant);
      throw allRoutesUnhealthy(model, r.retryAt, all);
    }
    if (r.excluded) throw noEligibleModel([r.failure], `The request's provider preferences leave ${model} no route.`);
    if (r.failure.code === "over_max_credits") {
      throw overCap((r.failure.supported as { estimate_credits: string }).estimate_credits, input.cap as string, model);
    }
    throw noChatUpstream(model);
  }
  return { candidates: [{ selection, routes: r.routes, estimate: r.estimate }], passedOver: [[]], hold: r.estimate };
}
