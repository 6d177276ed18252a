/**
 * Which output formats each provider's adapter can deliver, per output kind: plain data beside
 * names.ts, so that admission refuses a format no serving route can make instead of admitting the
 * task and failing it later. A card says what the model offers; this says what each route of it
 * can actually hand back (the sandbox: its own encoders; an upstream: the formats its API takes).
 */
import type { Capability } from "../catalog/schema";
import { SANDBOX_OUTPUT_FORMATS } from "../media/output-formats";

type Kind = "image" | "audio" | "video";
type Formats = Partial<Record<Kind, readonly string[]>>;

const JPEG_PNG = ["image/jpeg", "image/png"];
const PNG_JPEG_WEBP = ["image/png", "image/jpeg", "image/webp"];
const MP4 = ["video/mp4"];

const BY_PROVIDER: Readonly<Record<string, Formats>> = {
  sandbox: SANDBOX_OUTPUT_FORMATS,
  // output_format png|jpeg|webp; speech response_format mp3|opus|aac|flac|wav|pcm (opus comes in Ogg).
  openai: { image: PNG_JPEG_WEBP, audio: ["audio/mpeg", "audio/ogg", "audio/aac", "audio/flac", "audio/wav", "audio/pcm"] },
  replicate: { image: PNG_JPEG_WEBP },
  // BFL documents jpeg and png only.
  bfl: { image: JPEG_PNG },
  // fal: the FLUX endpoints take jpeg|png; the GPT Image endpoints png|jpeg|webp (see upstream below).
  fal: { image: JPEG_PNG, video: MP4 },
  google: { image: ["image/png"], video: MP4 },
  // Seedream makes JPEG, or PNG when asked.
  byteplus: { image: JPEG_PNG, video: MP4 },
  volcengine: { image: JPEG_PNG, video: MP4 },
  // audio_setting.format mp3|wav|flac|pcm (music mp3|wav).
  minimax: { audio: ["audio/mpeg", "audio/wav", "audio/flac", "audio/pcm"], video: MP4 },
  dashscope: { video: MP4 },
  luma: { video: MP4 },
  runway: { video: MP4 },
  kie: { audio: ["audio/mpeg"] },
};

/** Where one upstream id of a provider takes more than the provider's common set. */
function forUpstream(provider: string, kind: Kind, upstream: string): readonly string[] | undefined {
  if (provider === "fal" && kind === "image" && /(^|\/)gpt-image-/.test(upstream)) return PNG_JPEG_WEBP;
  return BY_PROVIDER[provider]?.[kind];
}

export function outputKind(capability: Capability): Kind | undefined {
  if (capability === "text_to_image" || capability === "image_to_image" || capability === "image_edit") return "image";
  if (capability === "text_to_music" || capability === "text_to_speech") return "audio";
  if (capability.endsWith("_to_video") || capability === "video_extend") return "video";
  return undefined;
}

/** The formats a route delivers for a capability: empty when it declares none for that kind. */
export function routeOutputFormats(provider: string, capability: Capability, upstream: string): readonly string[] {
  const kind = outputKind(capability);
  return kind ? (forUpstream(provider, kind, upstream) ?? []) : [];
}

export function routeProduces(
  route: { provider: string; upstream_model: string },
  capability: Capability,
  mime: string,
): boolean {
  return routeOutputFormats(route.provider, capability, route.upstream_model).includes(mime);
}

/** Every provider with declared formats (a test holds each media provider of names.ts to having them). */
export const PROVIDERS_WITH_OUTPUT_FORMATS = Object.keys(BY_PROVIDER);
