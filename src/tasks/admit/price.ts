/** Pricing a request: its model selected against the cards, its routes ordered, and the estimate it reserves. */
import { allowsModel, type KeyLimits } from "../../accounts/key-limits";
import { checkCapabilityAllowed, checkModelAllowed } from "../../accounts/key-refusals";
import type { QuoteRecord } from "../../accounts/quote-rows";
import type { CatalogBundle } from "../../catalog/build";
import { largestImageInputPixels } from "../../catalog/image-pixel-bound";
import { estimateCredits, type PricedMeter } from "../../catalog/pricing";
import { noLiveRoute, type Selection, select } from "../../catalog/select";
import { interfacesOf, isSelectable } from "../../catalog/views";
import { ApiError } from "../../errors/api-error";
import { allRoutesUnhealthy, orderByHealth, unhealthyFailure } from "../../health/route-order";
import type { HealthView } from "../../health/snapshot";
import { dec, fmt } from "../../lib/decimal";
import { flatten, getPath } from "../../lib/paths";
import { checkDeadline, deadlineFailure } from "../../operations/deadline-request";
import type { OperationContext, OperationSpec, StoredMedia } from "../../operations/types";
import { byokFeePercent, routeEstimate } from "../../provider-keys/fee";
import { orderWithTenantKeys, withTenantProviders } from "../../provider-keys/routing";
import type { ProviderKeyPlan } from "../../provider-keys/rows";
import { PROVIDERS } from "../../providers/names";
import { routeProduces } from "../../providers/output-formats";
import { type RoutePlan, routesFor } from "../../providers/routing";
import { checkOneModelField, type ModelFallback } from "../../routing/models-list";
import { applyPreferences, excludedByPreferences, hasPreferences } from "../../routing/preferences";
import { type AdmissionContext, COMMON_FIELDS, type CommonFields } from "./context";
import { resolveMedia } from "./media";
import { fitListed, type ListedModel, noListedModel, passedOver } from "./model-list";
import { atQuotedPrices, drillRouteOrder, overCapFailure, pricedRoutes } from "./route-prices";
import type { FetchedImages } from "./safety";

/**
 * The model to validate against: as sent; `auto` when omitted. Prompt enhancement ignores the
 * field (compatibility only) and runs on the service's enhancer, validated as concrete: the first
 * live one the key's model list allows. With none allowed it is `auto`, which passes over each
 * enhancer as `not_allowed_for_key` (422 no_eligible_model), as `auto` does for any capability.
 */
function modelFor(
  spec: OperationSpec,
  raw: Record<string, unknown>,
  bundle: CatalogBundle,
  providers: Set<string>,
  limits: KeyLimits | null | undefined,
): string {
  if (spec.capability === "video_prompt_enhance") {
    const live = interfacesOf({ bundle, providers }, spec.capability).find(
      ({ model, card }) => isSelectable(model, card, providers) && allowsModel(limits, model.model),
    );
    return live?.model.model ?? "auto";
  }
  return typeof raw.model === "string" ? raw.model : "auto";
}

/** The body's values for the card's controls, as sent: leaves of `model_options` included. */
function controlValues(spec: OperationSpec, raw: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of spec.controls) values[field] = getPath(raw, field);
  const options = raw.model_options;
  if (options && typeof options === "object") {
    for (const [path, value] of Object.entries(flatten(options, "model_options"))) {
      if (value === null || typeof value !== "object" || Array.isArray(value)) values[path] = value;
    }
  }
  return values;
}

/** What a request comes to before anything is reserved: its model, media, routes and price. */
export interface PricedRequest<B> {
  opCtx: OperationContext<B>;
  selection: Selection;
  media: StoredMedia[];
  routes: RoutePlan[];
  /** The meters of each route, in the routes' order. */
  meters: PricedMeter[][];
  quantities: Record<string, number>;
  /** What a create reserves: the dearest route's price of the estimated quantities. */
  estimate: string;
  /** The index of the route whose price is the estimate. */
  dearest: number;
  /** With `models`: the listed models passed over before this one, and those after it, each fitted or not. */
  fallbacks?: ModelFallback[];
  alternates?: ListedModel<PricedRequest<B>>[];
  /** With `models`: the listed model whose estimate is the hold (a quote's lines are its). */
  dearestModel?: PricedRequest<B>;
}

/**
 * Validation, media, selection and pricing of a request, the same for a create and a quote:
 * `model` replaces the body's (a quote's resolved model), `quoted` caps the unit prices and the
 * total at a quote's, and `max_credits` passes over `auto` candidates priced above it and refuses
 * a concrete model priced above it.
 */
export async function priceRequest<B extends CommonFields>(
  ctx: AdmissionContext,
  spec: OperationSpec,
  body: B,
  raw: Record<string, unknown>,
  opts: {
    bundle: CatalogBundle;
    providers: Set<string>;
    images?: FetchedImages;
    model?: string;
    quoted?: QuoteRecord;
    /** The tenant's own provider keys (live tasks only): src/provider-keys/routing.ts. */
    keys?: readonly ProviderKeyPlan[];
    /** Route health: open routes go last, and a model with every route open is refused (503). */
    health?: HealthView;
  },
): Promise<PricedRequest<B>> {
  checkOneModelField(raw);
  const { bundle, providers: platform } = opts;
  const prefs = hasPreferences(body.provider) ? body.provider : undefined;
  const listed = opts.model === undefined && Array.isArray(body.models) ? body.models : undefined;
  const keys = opts.keys ?? [];
  const providers = keys.length > 0 ? withTenantProviders(platform, keys) : platform;
  const feePercent = byokFeePercent(ctx.env);
  // The key's lists first: a key never learns more of a model it may not use.
  checkCapabilityAllowed(ctx.caller.limits, spec.capability);
  const asked = opts.model ?? raw.model;
  if (typeof asked === "string" && !listed) checkModelAllowed(ctx.caller.limits, asked);
  let voice: { voice_id: string; compatible_models: string[]; sample?: boolean } | undefined;
  const voiceId = spec.voice?.(body);
  if (voiceId !== undefined) {
    const found = bundle.voices.find((v) => v.voice_id === voiceId);
    if (!found) throw new ApiError("voice_not_found", `Voice '${voiceId}' does not exist.`, { param: "/voice" });
    voice = { voice_id: found.voice_id, compatible_models: found.compatible_models, ...(found.sample ? { sample: true } : {}) };
  }
  const media = await resolveMedia(ctx, spec.media?.(body) ?? [], largestImageInputPixels(bundle), opts.images);
  const cap = body.max_credits;
  // Only routes that can deliver the resolved output format serve (and fail over); selection refused the rest.
  const producingRoutes = (selection: Selection) =>
    orderWithTenantKeys(
      selection.model,
      spec.capability,
      routesFor(selection.model, spec.capability, platform),
      keys,
      feePercent,
    ).filter((r) => !selection.output || routeProduces(r, spec.capability, selection.output.mime));
  const healthOrder = (routes: RoutePlan[]) => (opts.health ? orderByHealth(routes, opts.health) : { routes, retry_at: null });
  const latency = (r: RoutePlan) => opts.health?.route(r.provider, r.upstream_model).p50_ms ?? null;
  /** The routes the caller's preferences leave, in their order (before health); the usual request pays nothing here. */
  const preferredRoutes = (selection: Selection, price?: (r: RoutePlan) => number) => {
    const producing = producingRoutes(selection);
    if (!prefs) return producing;
    const left = applyPreferences(producing, prefs, { latency, ...(price ? { price } : {}) });
    if (left.length === 0) {
      const failure = excludedByPreferences(
        selection.model.model,
        producing.map((r) => r.provider),
      );
      throw new ApiError("no_eligible_model", failure.message, {
        param: failure.param,
        details: { candidate_failures: [{ ...failure, error: undefined }] },
      });
    }
    return left;
  };
  const priceOn = (selection: Selection) => {
    const opCtx: OperationContext<B> = { body, raw, selection, media };
    spec.check?.(opCtx);
    const dimensions = spec.dimensions?.(opCtx) ?? {};
    const quantities = spec.quantities(opCtx);
    // `sort: "price"`: each route's price of this very request, as the estimate below reckons it.
    const routePrice = (r: RoutePlan) => {
      try {
        const one = pricedRoutes(ctx, [r], selection.card, dimensions, spec.usageKey);
        return Number(routeEstimate(estimateCredits({ meters: one.meters[0] as PricedMeter[], quantities }), r));
      } catch {
        return Number.POSITIVE_INFINITY;
      }
    };
    const producing = preferredRoutes(selection, prefs?.sort === "price" ? routePrice : undefined);
    const ordered = healthOrder(drillRouteOrder(ctx.env, body.metadata, producing));
    if (ordered.retry_at !== null) throw allRoutesUnhealthy(selection.model.model, ordered.retry_at, producing);
    const live = ordered.routes;
    if (live.length === 0) throw noLiveRoute(selection.model.model, spec.capability);
    const priced = pricedRoutes(ctx, live, selection.card, dimensions, spec.usageKey);
    // A quote's unit prices are the quoted model's: another listed model keeps its own (the total is capped below).
    const atQuote = opts.quoted && opts.quoted.resolved_model === selection.model.model;
    const meters = atQuote ? priced.meters.map((m) => atQuotedPrices(m, opts.quoted as QuoteRecord)) : priced.meters;
    // Reserve what the dearest route would cost, so a failover never runs past the reservation.
    const estimates = meters.map((m, i) =>
      routeEstimate(estimateCredits({ meters: m, quantities }), priced.routes[i] as RoutePlan),
    );
    let dearest = 0;
    estimates.forEach((e, i) => {
      if (dec(e).gt(estimates[dearest] as string)) dearest = i;
    });
    let estimate = estimates[dearest] as string;
    if (opts.quoted && dec(estimate).gt(opts.quoted.credits)) estimate = fmt(dec(opts.quoted.credits));
    return { opCtx, selection, media, routes: priced.routes, meters, quantities, estimate, dearest };
  };
  const checkVoice = (priced: PricedRequest<B>) => {
    const route = priced.routes[0] as RoutePlan;
    if (voice?.sample && !PROVIDERS[route.provider]?.simulated) {
      // A sample voice exists only in the simulator: no real upstream can speak it.
      throw new ApiError(
        "voice_model_incompatible",
        `Voice '${voice.voice_id}' is a sample voice that ${priced.selection.model.model} cannot speak on ${route.provider}; choose a preset voice.`,
        { param: "/voice", details: { voice_id: voice.voice_id, reason: "sample_voice", provider: route.provider } },
      );
    }
  };
  const selectOn = (model: string) =>
    select(
      { bundle, providers },
      {
        capability: spec.capability,
        model,
        prompt: spec.prompt?.(body),
        controls: controlValues(spec, spec.normalize ? spec.normalize(raw) : raw),
        canvas: spec.canvas?.(body),
        media,
        voice,
        fields: Object.fromEntries(Object.entries(flatten(raw)).filter(([k]) => !COMMON_FIELDS.has(k.split(".")[0] as string))),
        ...(spec.output ? { output: (s: Selection) => spec.output?.(body, s) } : {}),
        ...(cap !== undefined || body.deadline_seconds !== undefined
          ? {
              overCap: (s: Selection) =>
                deadlineFailure(s, body.deadline_seconds) ?? (cap !== undefined ? overCapFailure(s, cap, priceOn) : null),
            }
          : {}),
        unhealthy: (s: Selection) => {
          const producing = producingRoutes(s);
          const left = prefs ? applyPreferences(producing, prefs, { latency }) : producing;
          if (left.length === 0)
            return excludedByPreferences(
              s.model.model,
              producing.map((r) => r.provider),
            );
          const { retry_at } = healthOrder(left);
          return retry_at === null ? null : unhealthyFailure(s.model.model, retry_at);
        },
        ...(ctx.caller.limits?.models ? { allowModel: (m: string) => allowsModel(ctx.caller.limits, m) } : {}),
      },
    );
  if (listed) {
    // Each listed model as if it alone were asked: the first that fits serves, the rest wait behind it.
    const fitted = fitListed(listed, ctx.caller.limits, cap, (model) => {
      const selection = selectOn(model);
      checkDeadline(selection, body.deadline_seconds);
      const priced = priceOn(selection);
      checkVoice(priced);
      return priced;
    });
    const first = fitted.findIndex((l) => !l.failure);
    if (first < 0) throw noListedModel(spec.capability, fitted);
    const primary = (fitted[first] as { priced: PricedRequest<B> }).priced;
    const later = fitted.slice(first + 1);
    // The hold covers the dearest model the task may still move to (never above the cap or the quote).
    let dearestModel = primary;
    for (const l of later) if (!l.failure && dec(l.priced.estimate).gt(dearestModel.estimate)) dearestModel = l.priced;
    let estimate = dearestModel.estimate;
    if (opts.quoted && dec(estimate).gt(opts.quoted.credits)) estimate = fmt(dec(opts.quoted.credits));
    return { ...primary, estimate, fallbacks: passedOver(fitted, first, Date.now()), alternates: later, dearestModel };
  }
  const selection = selectOn(opts.model ?? modelFor(spec, raw, bundle, providers, ctx.caller.limits));
  checkDeadline(selection, body.deadline_seconds);
  const priced = priceOn(selection);
  if (cap !== undefined && dec(priced.estimate).gt(cap)) {
    throw new ApiError(
      "invalid_request",
      `This request may cost up to ${priced.estimate} credits on ${selection.model.model}, above max_credits (${cap}).`,
      {
        param: "/max_credits",
        details: {
          estimate_credits: priced.estimate,
          max_credits: fmt(dec(cap)),
          errors: [{ loc: ["body", "max_credits"], reason: `the estimate (${priced.estimate} credits) is above it` }],
        },
      },
    );
  }
  checkVoice(priced);
  return priced;
}
