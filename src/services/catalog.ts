/**
 * Catalog and voice reads as a caller sees them: what is live depends on who asks (a test-mode
 * key sees the sandbox, a live key the real routes). REST's catalog routes and MCP's catalog
 * tools answer from here.
 */
import type { KeyMode } from "../accounts/api-keys";
import { CAPABILITIES, type Capability } from "../catalog/schema";
import { loadCatalog } from "../catalog/store";
import { type CatalogContext, capabilityDetail, modelDetail } from "../catalog/views";
import { filterVoices, voiceView } from "../catalog/voices";
import type { Env } from "../env";
import { ApiError } from "../errors/api-error";
import { publicBaseUrl } from "../lib/public-url";
import { liveProviders } from "../providers/routing";
import type { CapabilityDetail, ModelDetail, Voice } from "./contracts/catalog";
import type { VoiceFilter } from "./contracts/voices";

/** The catalog as a caller of `mode` sees it. */
export async function catalogFor(env: Env, mode: KeyMode): Promise<CatalogContext> {
  return { bundle: await loadCatalog(env.CATALOG), providers: liveProviders(env, mode) };
}

/** One capability's detail, or 404 `not_found` naming the known ones. */
export function capabilityDetailOf(ctx: CatalogContext, capability: string): CapabilityDetail {
  const cap = CAPABILITIES.find((x): x is Capability => x === capability);
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
