/**
 * A typed image job as the body of the BFL endpoint it runs on (`POST /v1/{upstream_model}`), per
 * BFL's API reference (docs.bfl.ai/api-reference, the OpenAPI at api.bfl.ai/openapi.json):
 *  - FLUX.2 (`flux-2-pro`, `flux-2-max`, …): prompt, width/height (at least 64, multiples of 16,
 *    up to 4 MP), seed, prompt_upsampling, output_format jpeg|png, and for image-to-image and edits
 *    the references as input_image, input_image_2 … input_image_8 (URL or base64; [klein] takes 4).
 *    One endpoint serves all three capabilities: an input image makes it an edit.
 *  - FLUX.1 Kontext (`flux-kontext-pro`, `flux-kontext-max`): prompt, aspect_ratio between 21:9
 *    and 9:21 (about 1 MP whatever the ratio; an edit keeps its input's shape when none is named),
 *    seed, prompt_upsampling, output_format (png by default, so it is always sent), input_image
 *    (input_image_2 … _4 are marked experimental).
 *  - FLUX1.1 [pro] Ultra (`flux-pro-1.1-ultra`): prompt, aspect_ratio (16:9 by default, ~4 MP),
 *    seed, prompt_upsampling, output_format, and one `image_prompt` to remix, sent as base64
 *    (image_prompt_strength keeps its default, as the card says).
 * Images go as short-lived signed URLs served by this service where BFL fetches URLs, never the
 * client's URL. Not sent: safety_tolerance (BFL's default, 2), webhook_url/webhook_secret (polling
 * only, see index.ts), raw. BFL returns one image per task, so only count 1 is accepted.
 * Edit regions: no FLUX.2 or Kontext field takes a mask, and no card routed here offers them.
 */
import { toBase64 as base64 } from "../../lib/base64";
import type { ProviderContext } from "../adapter";
import { type ImageCapability, type ImageRequest, imageOutputType, type JobFor, type JobInput } from "../jobs";
import { ProviderError } from "../types";

export type Family = "flux2" | "kontext" | "ultra";

export function familyOf(endpoint: string): Family | null {
  if (/^flux-2-[a-z0-9.-]+$/.test(endpoint)) return "flux2";
  if (/^flux-kontext-[a-z0-9.-]+$/.test(endpoint)) return "kontext";
  if (endpoint === "flux-pro-1.1-ultra") return "ultra";
  return null;
}

/** Reference images each family takes (FLUX.2 [klein] four, the others eight; Kontext four; Ultra one). */
function maxInputs(family: Family, endpoint: string): number {
  if (family === "flux2") return endpoint.startsWith("flux-2-klein") ? 4 : 8;
  return family === "kontext" ? 4 : 1;
}

export const EDGE_MIN = 64;
export const EDGE_MULTIPLE = 16;
/** FLUX.2's ceiling: "up to 4 MP", 2048x2048 being its largest square. */
export const MAX_PIXELS = 2048 * 2048;

type Body = Record<string, unknown>;

function refuse(message: string): ProviderError {
  return new ProviderError("unsupported_option", `bfl: ${message}`, { retryable: false, accepted: "no" });
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** An aspect ratio in BFL's words: the canvas's own when it names one, else the exact pixels' ratio in lowest terms. */
export function aspectRatio(request: ImageRequest, keepSource: boolean): string | undefined {
  const canvas = request.canvas;
  if (canvas?.type === "preset" && canvas.aspect === "source" && keepSource) return undefined;
  if (canvas?.type === "preset" && /^\d+:\d+$/.test(canvas.aspect)) return canvas.aspect;
  const { width, height } = request.dimensions;
  const d = gcd(width, height) || 1;
  return `${width / d}:${height / d}`;
}

/** Kontext and Ultra take any ratio between 21:9 and 9:21. */
function withinFluxRange(aspect: string): boolean {
  const [w, h] = aspect.split(":").map(Number) as [number, number];
  const r = w / h;
  return Number.isFinite(r) && r <= 21 / 9 + 1e-9 && r >= 9 / 21 - 1e-9;
}

/** The output format in BFL's words; webp is not among the documented values (admission keeps webp requests off BFL). */
export function outputFormat(job: JobFor<ImageCapability>): string | undefined {
  const format = imageOutputType(job);
  return format === "image/jpeg" ? "jpeg" : format === "image/png" ? "png" : undefined;
}

/** FLUX.2's colour control reads hex codes written in the prompt; heavier colours first. */
export function promptWithPalette(request: ImageRequest): string {
  const colours = [...(request.palette ?? [])]
    .filter((p) => /^#[0-9a-f]{6}$/i.test(p.color))
    .sort((a, b) => b.weight - a.weight)
    .map((p) => p.color.toLowerCase());
  return colours.length === 0 ? request.prompt : `${request.prompt}\n\nUse the colour palette ${colours.join(", ")}.`;
}

function common(job: JobFor<ImageCapability>): Body {
  const r = job.request;
  const format = outputFormat(job);
  return {
    ...(typeof r.seed === "number" ? { seed: r.seed } : {}),
    // Null or omitted keeps BFL's own default.
    ...(typeof r.enhance_prompt === "boolean" ? { prompt_upsampling: r.enhance_prompt } : {}),
    ...(format ? { output_format: format } : {}),
  };
}

/** input_image, input_image_2, … in the job's order. */
async function referenceFields(ctx: ProviderContext, images: JobInput[]): Promise<Body> {
  const urls = await Promise.all(images.map((i) => ctx.inputs.url(i)));
  return Object.fromEntries(urls.map((u, i) => [i === 0 ? "input_image" : `input_image_${i + 1}`, u]));
}

export interface BflRequest {
  endpoint: string;
  body: Body;
}

/** The endpoint and body for a job; what BFL cannot make exactly is refused before anything is sent. */
export async function bflRequest(job: JobFor<ImageCapability>, ctx: ProviderContext): Promise<BflRequest> {
  const endpoint = job.upstream_model.replace(/^\/+|\/+$/g, "").replace(/^v1\//, "");
  const family = familyOf(endpoint);
  if (!family) {
    throw new ProviderError("unsupported_capability", `bfl: "${endpoint.slice(0, 80)}" is not a BFL endpoint wired here.`, {
      retryable: false,
      accepted: "no",
    });
  }
  const r = job.request;
  if (r.count !== 1) throw refuse(`${endpoint} makes one image per task (asked for ${r.count}).`);
  const images = job.capability === "text_to_image" ? [] : job.inputs.filter((i) => i.kind === "image");
  const max = maxInputs(family, endpoint);
  if (images.length > max) throw refuse(`${endpoint} takes at most ${max} input image${max === 1 ? "" : "s"}.`);

  if (family === "flux2") {
    const { width, height } = r.dimensions;
    const fits = (e: number) => Number.isInteger(e) && e >= EDGE_MIN && e % EDGE_MULTIPLE === 0;
    if (!fits(width) || !fits(height) || width * height > MAX_PIXELS) {
      throw refuse(
        `${width}x${height} cannot be made exactly by ${endpoint} (each side at least ${EDGE_MIN} px and a multiple of ${EDGE_MULTIPLE}, at most 4 MP).`,
      );
    }
    return {
      endpoint,
      body: { prompt: promptWithPalette(r), width, height, ...common(job), ...(await referenceFields(ctx, images)) },
    };
  }

  const aspect = aspectRatio(r, images.length > 0);
  if (aspect !== undefined && !withinFluxRange(aspect)) throw refuse(`${endpoint} takes aspect ratios from 21:9 to 9:21.`);
  if (family === "kontext") {
    return {
      endpoint,
      body: {
        prompt: r.prompt,
        ...(aspect ? { aspect_ratio: aspect } : {}),
        ...common(job),
        ...(await referenceFields(ctx, images)),
      },
    };
  }
  const remix = images[0];
  return {
    endpoint,
    body: {
      prompt: r.prompt,
      aspect_ratio: aspect ?? aspectRatio(r, false),
      ...common(job),
      ...(remix ? { image_prompt: base64(await ctx.inputs.bytes(remix)) } : {}),
    },
  };
}

export { base64 };
