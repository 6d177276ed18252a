/**
 * Catalog and voice reads as a caller sees them: what is live depends on who asks (a test-mode
 * key sees the sandbox, a live key the real routes). REST's catalog routes and MCP's catalog
 * tools answer from here.
 */

import { allowsCapability, allowsModel, type KeyLimits } from "../accounts/key-limits";
import type { CatalogBundle } from "../catalog/build";
import { CAPABILITIES, type Capability } from "../catalog/schema";
import { loadCatalog } from "../catalog/store";
import { type CatalogContext, capabilityDetail, modelDetail } from "../catalog/views";
import { filterVoices, voiceView } from "../catalog/voices";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { healthView } from "../health/snapshot";
import type { KeyMode } from "../keys/api-keys";
import { publicBaseUrl } from "../lib/public-url";
import { liveProviders } from "../providers/routing";
import type { CapabilityDetail, ModelDetail, Voice } from "./contracts/catalog";
import type { VoiceFilter } from "./contracts/voices";

export type { CatalogBundle } from "../catalog/build";
export { deprecationHeaders } from "../catalog/deprecation";
export type { Capability } from "../catalog/schema";
export { CAPABILITIES } from "../catalog/schema";
export { loadCatalog } from "../catalog/store";
export { capabilityList, interfacesOf, isOffered, isSelectable, modelList } from "../catalog/views";
/**
 * The catalog as a caller of `mode` sees it; with a key's `limits`, only the models and
 * capabilities the key may use (a model left out reads as one that does not exist).
 */
export async function catalogFor(env: Env, mode: KeyMode, limits?: KeyLimits | null): Promise<CatalogContext> {
  const providers = liveProviders(env, mode);
  const [bundle, health] = await Promise.all([loadCatalog(env.CATALOG), healthView(env, providers)]);
  return { bundle: limits ? limitedBundle(bundle, limits) : bundle, providers, health };
}

function limitedBundle(bundle: CatalogBundle, limits: KeyLimits): CatalogBundle {
  if (!limits.models && !limits.capabilities) return bundle;
  const models: CatalogBundle["models"] = {};
  for (const [id, model] of Object.entries(bundle.models)) {
    if (!allowsModel(limits, id)) continue;
    const interfaces = model.interfaces.filter((i) => allowsCapability(limits, i.capability));
    if (interfaces.length > 0) models[id] = { ...model, interfaces };
  }
  const capabilities = Object.fromEntries(
    Object.entries(bundle.capabilities).filter(([cap]) => allowsCapability(limits, cap)),
  ) as CatalogBundle["capabilities"];
  return { ...bundle, models, capabilities };
}

/** One capability's detail, or 404 `not_found` naming the known ones. */
export function capabilityDetailOf(ctx: CatalogContext, capability: string): CapabilityDetail {
  const cap = CAPABILITIES.find((x): x is Capability => x === capability && Object.hasOwn(ctx.bundle.capabilities, x));
  if (!cap) {
    throw new ApiError("not_found", `Capability '${capability}' does not exist.`, {
      details: { known_capabilities: CAPABILITIES },
    });
  }
  return capabilityDetail(ctx, cap) as CapabilityDetail;
}

/** One model's detail, or 404 `not_found`. */
export function modelDetailOf(ctx: CatalogContext, model: string): ModelDetail {
  const found = Object.hasOwn(ctx.bundle.models, model) ? ctx.bundle.models[model] : undefined;
  if (!found) throw new ApiError("not_found", `Model '${model}' does not exist in the catalog.`);
  return modelDetail(ctx, found) as ModelDetail;
}

/** The voices matching `filter`, as `GET /v1/voices` lists them. */
export function voiceListOf(env: Env, ctx: CatalogContext, filter: VoiceFilter) {
  return {
    object: "list" as const,
    data: filterVoices(ctx.bundle.voices, filter).map((v) => voiceView(v, publicBaseUrl(env))),
  };
}

/** One voice, or 404 `voice_not_found`. */
export function voiceOf(env: Env, ctx: CatalogContext, voiceId: string): Voice {
  const voice = ctx.bundle.voices.find((v) => v.voice_id === voiceId);
  if (!voice) throw new ApiError("voice_not_found", `Voice '${voiceId}' does not exist.`);
  return voiceView(voice, publicBaseUrl(env)) as Voice;
}
