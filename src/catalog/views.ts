/**
 * Public shapes of the catalog: model lists, capability lists and details, model details.
 * Internal fields of the data files (ranking, routes' credentials) never leave through here.
 */

import type { HealthView } from "../health/snapshot";
import { routeHealthWord } from "../health/words";
import { dec, fmt } from "../lib/decimal";
import { hasLiveRoute, routesFor, upstreamModel } from "../providers/routing";
import type { CatalogBundle } from "./build";
import { isShutDown } from "./deprecation";
import { pricingAt } from "./pricing";
import type { Capability, CapabilityFile, InterfaceFile, ModelFile } from "./schema";

const SELECTABLE = new Set(["live", "preview", "deprecated"]);

export interface CatalogContext {
  bundle: CatalogBundle;
  providers: Set<string>;
  /** Route health, for `routes[].health` (absent: every route reads as operational). */
  health?: HealthView;
}

/** Whether the card's status lets it be chosen at all (live, preview, deprecated), and its shutdown has not come. */
export function isOffered(model: ModelFile, card: InterfaceFile): boolean {
  return SELECTABLE.has(card.status ?? model.status) && !isShutDown(model);
}

/** Offered, and a route serves it for this caller on this deployment. */
export function isSelectable(model: ModelFile, card: InterfaceFile, providers: Set<string>): boolean {
  return isOffered(model, card) && hasLiveRoute(model, card.capability, providers);
}

/** Each route, and whether it serves this caller now (the sandbox only where no real route does). */
function routesView(model: ModelFile, card: InterfaceFile, providers: Set<string>, health?: HealthView) {
  const live = new Set(routesFor(model, card.capability, providers).map((r) => r.provider));
  return model.routes.map((r) => ({
    provider: r.provider,
    upstream_model: upstreamModel(r, card.capability),
    live: live.has(r.provider),
    health: routeHealthWord(health?.route(r.provider, upstreamModel(r, card.capability)).state ?? "closed"),
    ...(r.pricing?.[card.capability] ? { pricing: pricingAt(r.pricing[card.capability] as InterfaceFile["pricing"]) } : {}),
    ...(r.provider === "sandbox" ? { simulated: true, note: r.note ?? "built-in simulator" } : {}),
  }));
}

function cheapest(pricing: InterfaceFile["pricing"]): string {
  return fmt(pricing.options.map((o) => dec(o.unit_credits)).reduce((a, b) => (b.lt(a) ? b : a)));
}

/** The price a caller would pay: that of the route that would serve them (its own, or the card's). */
export function servingPricing(ctx: CatalogContext, model: ModelFile, card: InterfaceFile): InterfaceFile["pricing"] {
  return pricingAt(routesFor(model, card.capability, ctx.providers)[0]?.pricing ?? card.pricing);
}

/** A typed interface card, as it appears in a capability detail and in a model detail. */
export function cardView(ctx: CatalogContext, model: ModelFile, card: InterfaceFile, form: "capability" | "model") {
  const capability = ctx.bundle.capabilities[card.capability];
  const serving = servingPricing(ctx, model, card);
  const pricing =
    form === "capability"
      ? serving
      : {
          unit_credits: cheapest(serving),
          unit: serving.unit,
          billing_basis: serving.billing_basis,
          meter: serving.meter,
          options: serving.options,
          source_kind: serving.source_kind,
          ...(serving.estimate_reason ? { estimate_reason: serving.estimate_reason } : {}),
          ...(serving.schedule ? { schedule: serving.schedule } : {}),
        };
  return {
    schema_version: card.schema_version,
    model: model.model,
    display_name: model.display_name,
    owned_by: model.owned_by,
    capability: card.capability,
    status: card.status ?? model.status,
    available: isSelectable(model, card, ctx.providers),
    ...(model.deprecation ? { deprecation: model.deprecation } : {}),
    quality_tier: card.quality_tier,
    controls: card.controls,
    ...(card.prompt ? { prompt: card.prompt } : {}),
    inputs: card.inputs,
    ...(card.outputs ? { outputs: card.outputs } : {}),
    ...(card.canvas ? { canvas: card.canvas } : {}),
    ...(card.context_window ? { context_window: card.context_window } : {}),
    ...(card.max_output_tokens ? { max_output_tokens: card.max_output_tokens } : {}),
    ...(card.supported_languages ? { supported_languages: card.supported_languages } : {}),
    rules: card.rules,
    ...(card.timing ? { timing: card.timing } : {}),
    pricing,
    auto: capability.auto,
    routes: routesView(model, card, ctx.providers, ctx.health),
  };
}

/** Per bundle (immutable once loaded) and capability: the sorted cards, shared by every request. */
const sortedInterfaces = new WeakMap<object, Map<Capability, readonly { model: ModelFile; card: InterfaceFile }[]>>();

export function interfacesOf(ctx: CatalogContext, capability: Capability): { model: ModelFile; card: InterfaceFile }[] {
  let byCapability = sortedInterfaces.get(ctx.bundle);
  if (!byCapability) {
    byCapability = new Map();
    sortedInterfaces.set(ctx.bundle, byCapability);
  }
  let sorted = byCapability.get(capability);
  if (!sorted) {
    sorted = sortInterfaces(ctx, capability);
    byCapability.set(capability, sorted);
  }
  return sorted as { model: ModelFile; card: InterfaceFile }[];
}

function sortInterfaces(ctx: CatalogContext, capability: Capability): { model: ModelFile; card: InterfaceFile }[] {
  const out: { model: ModelFile; card: InterfaceFile }[] = [];
  for (const model of Object.values(ctx.bundle.models)) {
    for (const card of model.interfaces) if (card.capability === capability) out.push({ model, card });
  }
  // Deprecated models stay selectable, but `auto` (which takes the first that fits) prefers the others.
  const deprecated = (x: { model: ModelFile; card: InterfaceFile }) =>
    (x.card.status ?? x.model.status) === "deprecated" || x.model.deprecation ? 1 : 0;
  return out.sort(
    (a, b) => deprecated(a) - deprecated(b) || a.card.auto_rank - b.card.auto_rank || a.model.model.localeCompare(b.model.model),
  );
}

/** Models in the chat-compatible list shape (`{object: "list", data: [{id, object: "model", …}]}`). */
export function modelList(ctx: CatalogContext) {
  const created = Math.floor(Date.parse(ctx.bundle.built_at) / 1000);
  const data = Object.values(ctx.bundle.models)
    .filter((m) => m.status !== "retired")
    .sort((a, b) => a.model.localeCompare(b.model))
    .map((m) => ({
      id: m.model,
      object: "model" as const,
      created,
      owned_by: m.owned_by,
      display_name: m.display_name,
      status: m.status,
      capabilities: m.interfaces.map((i) => i.capability),
      available: m.interfaces.some((i) => isSelectable(m, i, ctx.providers)),
    }));
  return { object: "list" as const, data };
}

function startingCredits(ctx: CatalogContext, capability: Capability): string | null {
  const prices = interfacesOf(ctx, capability)
    .filter(({ model, card }) => isSelectable(model, card, ctx.providers))
    .map(({ model, card }) => dec(cheapest(servingPricing(ctx, model, card))));
  if (prices.length === 0) return null;
  return fmt(prices.reduce((a, b) => (b.lt(a) ? b : a)));
}

function capabilitySummary(ctx: CatalogContext, cap: CapabilityFile) {
  const models = interfacesOf(ctx, cap.capability);
  return {
    capability: cap.capability,
    endpoint: cap.endpoint,
    input_modality: cap.input_modality,
    output_modality: cap.output_modality,
    execution_mode: cap.execution_mode,
    description: cap.description,
    status: cap.status,
    lifecycle: cap.lifecycle,
    visibility: cap.visibility,
    model_count: models.length,
    starting_credits: startingCredits(ctx, cap.capability),
  };
}

export function capabilityList(ctx: CatalogContext) {
  return {
    object: "list" as const,
    data: Object.values(ctx.bundle.capabilities).map((cap) => capabilitySummary(ctx, cap)),
  };
}

/** Figures that summarise a capability's models, by detail variant. */
function variantFigures(ctx: CatalogContext, cap: CapabilityFile): Record<string, unknown> {
  const cards = interfacesOf(ctx, cap.capability).filter(({ model, card }) => isSelectable(model, card, ctx.providers));
  const controlValues = (field: string) => [
    ...new Set(cards.flatMap(({ card }) => card.controls.find((c) => c.field === field)?.allowed_values ?? [])),
  ];
  switch (cap.detail_variant) {
    case "image": {
      const pixels = cards.flatMap(({ card }) => [
        ...Object.values(card.canvas?.presets ?? {}).flatMap((byAspect) => Object.values(byAspect).map(([w, h]) => w * h)),
        card.canvas?.target.supported ? card.canvas.target.maximum_total_pixels : 0,
      ]);
      return {
        max_output_images: Math.max(0, ...cards.map(({ card }) => card.outputs?.public_max_count ?? 0)),
        max_canvas_pixels: Math.max(0, ...pixels),
        preset_tiers: [...new Set(cards.flatMap(({ card }) => card.canvas?.preset_tiers ?? []))],
      };
    }
    case "video":
      return {
        durations: controlValues("duration"),
        resolutions: controlValues("resolution"),
        aspect_ratios: controlValues("aspect_ratio"),
      };
    case "music":
    case "audio":
      return {
        formats: [...new Set(cards.flatMap(({ card }) => card.outputs?.formats ?? [card.outputs?.format ?? ""]).filter(Boolean))],
      };
    case "chat":
    case "understanding":
    case "video_prompt_enhancement":
      return {
        max_context_window: Math.max(0, ...cards.map(({ card }) => card.context_window ?? 0)) || null,
        max_prompt_characters: Math.max(0, ...cards.map(({ card }) => card.prompt?.limit ?? 0)) || null,
      };
  }
}

export function capabilityDetail(ctx: CatalogContext, capability: Capability) {
  const cap = ctx.bundle.capabilities[capability];
  return {
    ...capabilitySummary(ctx, cap),
    detail_variant: cap.detail_variant,
    schema_version: cap.schema_version,
    auto: cap.auto,
    ...variantFigures(ctx, cap),
    models: interfacesOf(ctx, capability).map(({ model, card }) => cardView(ctx, model, card, "capability")),
  };
}

export function modelDetail(ctx: CatalogContext, model: ModelFile) {
  return {
    model: model.model,
    display_name: model.display_name,
    owned_by: model.owned_by,
    description: model.description,
    status: model.status,
    source: model.source,
    checked_at: model.checked_at,
    ...(model.deprecation ? { deprecation: model.deprecation } : {}),
    interfaces: model.interfaces.map((card) => cardView(ctx, model, card, "model")),
  };
}
