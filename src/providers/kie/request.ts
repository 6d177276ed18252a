/**
 * A music job as the body of Kie's Suno generate call (`POST /api/v1/generate`, docs.kie.ai
 * Suno API "Generate Music"):
 *  - simple mode (`customMode: false`): only `prompt` (at most 500 characters, the card enforces
 *    it) and `instrumental`; Suno writes its own lyrics and title, so the job's title is not sent;
 *  - custom mode (`customMode: true`, the card's `model_options.family_a.custom_mode`): the
 *    service prompt becomes `style`, the lyrics become `prompt`, and `title` is required by Kie.
 *    Instrumental music needs style and title; sung music needs lyrics as well.
 *  - optional: `negativeTags`, `styleWeight`, `weirdnessConstraint`, `audioWeight` (0-1) in
 *    either mode, `vocalGender` (m|f) in custom mode only, as Kie documents it.
 *  - `model` is the route's upstream model (`V5`); `callBackUrl` is required by Kie (see
 *    `callbackUrl`). Two tracks come back from every call, the card's fixed count.
 */

import type { ProviderContext } from "../adapter";
import type { JobFor } from "../jobs";
import { ProviderError } from "../types";

export type SunoBody = Record<string, unknown>;

/** Kie's Suno model names (the ones its documentation lists). */
const MODEL = /^V\d+(?:_\d+)?(?:PLUS|ALL)?$/;
/** What Kie makes per call. */
export const TRACKS_PER_CALL = 2;

/**
 * Kie marks `callBackUrl` required and refuses a request without it. Polling
 * `record-info` is the documented way to learn the outcome without a callback, so when this
 * deployment cannot be called back, a URL under the reserved `.invalid` domain (RFC 2606: never
 * resolves) satisfies the field and no callback reaches anyone. An operator may name a receiver
 * with PROVIDER_KIE_CALLBACK_URL.
 */
export const INERT_CALLBACK_URL = "https://callback.kie.invalid/ignored";

export function callbackUrl(ctx: ProviderContext): string {
  if (ctx.webhookUrl) return ctx.webhookUrl;
  const configured = ctx.config.extra.callback_url;
  if (configured && /^https:\/\/\S+$/.test(configured)) return configured;
  return INERT_CALLBACK_URL;
}

function refuse(message: string): ProviderError {
  return new ProviderError("unsupported_option", `kie: ${message}`, { retryable: false, accepted: "no" });
}

function weight(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1
    ? Math.round(value * 100) / 100
    : undefined;
}

export function sunoBody(job: JobFor<"text_to_music">, ctx: ProviderContext): SunoBody {
  const model = job.upstream_model.trim();
  if (!MODEL.test(model)) {
    throw new ProviderError("model_unavailable", `kie: "${model.slice(0, 40)}" is not a Suno model Kie names.`, {
      accepted: "no",
    });
  }
  const r = job.request;
  if (r.tracks !== TRACKS_PER_CALL) throw refuse(`Suno makes ${TRACKS_PER_CALL} tracks per request (asked for ${r.tracks}).`);
  const options = (r.model_options?.family_a ?? {}) as Record<string, unknown>;
  const custom = options.custom_mode === true;
  const lyrics = typeof r.lyrics === "string" && r.lyrics.trim() ? r.lyrics : undefined;

  const body: SunoBody = { customMode: custom, instrumental: r.instrumental, model, callBackUrl: callbackUrl(ctx) };
  if (custom) {
    if (!r.instrumental && !lyrics) throw refuse("custom mode with vocals needs lyrics (or instrumental: true).");
    body.style = r.prompt;
    // Kie requires a title in custom mode; the card leaves it optional.
    body.title = r.title?.trim() ? r.title : "Untitled";
    if (!r.instrumental && lyrics) body.prompt = lyrics;
    if (options.vocal_gender === "m" || options.vocal_gender === "f") body.vocalGender = options.vocal_gender;
  } else {
    if (lyrics) throw refuse("lyrics are sung only in custom mode.");
    body.prompt = r.prompt;
  }
  if (typeof options.negative_tags === "string" && options.negative_tags.trim()) body.negativeTags = options.negative_tags;
  const weights = {
    styleWeight: weight(options.style_weight),
    weirdnessConstraint: weight(options.weirdness_constraint),
    audioWeight: weight(options.audio_weight),
  };
  for (const [k, v] of Object.entries(weights)) if (v !== undefined) body[k] = v;
  return body;
}
