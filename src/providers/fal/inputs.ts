/**
 * The typed job as the input of the fal endpoint it runs on. Each endpoint family has its own
 * documented schema (fal model API pages):
 *  - FLUX.2 (`fal-ai/flux-2-pro`, `…/edit`): prompt, image_size {width,height}, seed,
 *    output_format jpeg|png; the edit endpoint takes `image_urls`.
 *  - FLUX.1 Kontext [pro] (`fal-ai/flux-pro/kontext`, `…/text-to-image`): prompt, aspect_ratio,
 *    num_images, seed, output_format, enhance_prompt; the edit endpoint takes one `image_url`.
 *  - FLUX1.1 [pro] ultra (`fal-ai/flux-pro/v1.1-ultra`): prompt, aspect_ratio, num_images, seed,
 *    output_format, enhance_prompt, and `image_url` as an image prompt.
 *  - GPT Image (`openai/gpt-image-2`, `…/edit`): prompt, image_size {width,height}, num_images,
 *    output_format; the edit endpoint takes `image_urls` and an optional `mask_url`.
 *  - Kling (`fal-ai/kling-video/…`): prompt, duration as a string of seconds, aspect_ratio (text
 *    only), resolution, generate_audio; `start_image_url` / `end_image_url` for image modes.
 *  - PixVerse (`fal-ai/pixverse/…`): prompt, duration in whole seconds, aspect_ratio (text only),
 *    resolution, negative_prompt, seed, generate_audio_switch; `image_url`, and for `…/extend`
 *    `video_url` with the duration of the continuation.
 * Media always goes as a short-lived signed URL served by this service, never the client's URL.
 */

import type { ProviderContext } from "../adapter";
import { editMaskDataUri } from "../edit-mask";
import {
  type ImageCapability,
  type ImageRequest,
  imageOutputType,
  type JobFor,
  type JobInput,
  type ProviderJob,
  type VideoCapability,
  type VideoRequest,
} from "../jobs";
import { ProviderError } from "../types";

export type Family = "flux2" | "kontext" | "flux-ultra" | "gpt-image" | "kling" | "pixverse" | "generic";

export function familyOf(endpoint: string): Family {
  if (/^fal-ai\/flux-2(?:-[a-z]+)?(?:\/edit)?$/.test(endpoint)) return "flux2";
  if (/^fal-ai\/flux-pro\/kontext(?:\/|$)/.test(endpoint)) return "kontext";
  if (/^fal-ai\/flux-pro\/v1\.1-ultra$/.test(endpoint)) return "flux-ultra";
  if (/^(?:openai|fal-ai)\/gpt-image-[^/]+(?:\/edit)?$/.test(endpoint)) return "gpt-image";
  if (/^fal-ai\/kling-video\//.test(endpoint)) return "kling";
  if (/^fal-ai\/pixverse\//.test(endpoint)) return "pixverse";
  return "generic";
}

type Input = Record<string, unknown>;

/** The aspect ratios FLUX Kontext and FLUX ultra take. */
const FLUX_ASPECTS = ["21:9", "16:9", "4:3", "3:2", "1:1", "2:3", "3:4", "9:16", "9:21"];

const isImageJob = (job: ProviderJob): job is JobFor<ImageCapability> =>
  job.capability === "text_to_image" || job.capability === "image_to_image" || job.capability === "image_edit";

function inputsOf(job: ProviderJob, ...fields: string[]): JobInput[] {
  return job.inputs.filter((i) => fields.includes(i.field));
}

function urls(ctx: ProviderContext, inputs: JobInput[]): Promise<string[]> {
  return Promise.all(inputs.map((i) => ctx.inputs.url(i)));
}

function ratio(aspect: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(aspect);
  return m ? Number(m[1]) / Number(m[2]) : undefined;
}

/** The canvas's own aspect when the endpoint lists it, else the listed one nearest the resolved pixels. */
export function nearestAspect(request: ImageRequest, allowed: string[]): string {
  const asked = request.canvas?.type === "preset" ? request.canvas.aspect : undefined;
  if (asked && allowed.includes(asked)) return asked;
  const target = Math.log(request.dimensions.width / request.dimensions.height);
  let best = allowed[0] as string;
  for (const a of allowed) {
    if (Math.abs(Math.log(ratio(a) ?? 1) - target) < Math.abs(Math.log(ratio(best) ?? 1) - target)) best = a;
  }
  return best;
}

/** The output format in fal's words, when the endpoint offers it (admission keeps other requests off fal). */
function outputFormat(job: JobFor<ImageCapability>, offered: string[]): string {
  const format = imageOutputType(job)?.replace(/^image\//, "") ?? "";
  const word = format === "jpg" ? "jpeg" : format;
  return offered.includes(word) ? word : (offered[0] as string);
}

/** FLUX.2's hex colour control is written in the prompt; heavier colours first. */
function withPalette(request: ImageRequest): string {
  const palette = request.palette ?? [];
  if (palette.length === 0) return request.prompt;
  const colors = [...palette].sort((a, b) => b.weight - a.weight).map((p) => p.color.toLowerCase());
  return `${request.prompt}\n\nColor palette: ${colors.join(", ")}`;
}

function common(request: { seed?: number; enhance_prompt?: unknown }, enhance: boolean): Input {
  return {
    ...(typeof request.seed === "number" ? { seed: request.seed } : {}),
    // Null or omitted keeps the endpoint's own default.
    ...(enhance && typeof request.enhance_prompt === "boolean" ? { enhance_prompt: request.enhance_prompt } : {}),
  };
}

async function imageInput(job: JobFor<ImageCapability>, endpoint: string, ctx: ProviderContext): Promise<Input> {
  const r = job.request;
  const images = inputsOf(job, "images", "image");
  const size = { width: r.dimensions.width, height: r.dimensions.height };
  const withImages = job.capability !== "text_to_image";
  switch (familyOf(endpoint)) {
    case "flux2":
      return {
        prompt: withPalette(r),
        image_size: size,
        output_format: outputFormat(job, ["jpeg", "png"]),
        ...common(r, false),
        ...(withImages ? { image_urls: await urls(ctx, images) } : {}),
      };
    case "kontext": {
      // An edit keeps the base image's shape unless the canvas names an aspect.
      const keepShape = job.capability === "image_edit" && r.canvas?.type === "preset" && r.canvas.aspect === "source";
      return {
        prompt: r.prompt,
        num_images: r.count,
        output_format: outputFormat(job, ["jpeg", "png"]),
        ...(keepShape ? {} : { aspect_ratio: nearestAspect(r, FLUX_ASPECTS) }),
        ...common(r, true),
        ...(withImages ? { image_url: (await urls(ctx, images.slice(0, 1)))[0] } : {}),
      };
    }
    case "flux-ultra":
      return {
        prompt: r.prompt,
        num_images: r.count,
        aspect_ratio: nearestAspect(r, FLUX_ASPECTS),
        output_format: outputFormat(job, ["jpeg", "png"]),
        ...common(r, true),
        ...(withImages ? { image_url: (await urls(ctx, images.slice(0, 1)))[0] } : {}),
      };
    case "gpt-image": {
      const input: Input = {
        prompt: r.prompt,
        image_size: size,
        num_images: r.count,
        output_format: outputFormat(job, ["png", "jpeg", "webp"]),
      };
      if (!withImages) return input;
      input.image_urls = await urls(ctx, images);
      const regions = (r.edit_regions ?? []).filter((e) => e.image_index === 0);
      const base = images[0];
      if (regions.length > 0 && base) {
        input.mask_url = await editMaskDataUri(base.width ?? size.width, base.height ?? size.height, regions);
      }
      return input;
    }
    default:
      // fal's common image arguments (docs "Model Arguments").
      return {
        prompt: r.prompt,
        image_size: size,
        num_images: r.count,
        output_format: outputFormat(job, ["jpeg", "png"]),
        ...(r.negative_prompt ? { negative_prompt: r.negative_prompt } : {}),
        ...common(r, false),
        ...(withImages ? { image_urls: await urls(ctx, images) } : {}),
      };
  }
}

/** Seconds of new video an extension asks for: the final length less the source's. */
export function extensionSeconds(job: ProviderJob): number {
  const r = job.request as VideoRequest;
  const source = r.source_duration ?? inputsOf(job, "video")[0]?.duration_seconds ?? 0;
  return Math.max(1, Math.ceil(r.duration - source));
}

async function videoInput(job: JobFor<VideoCapability>, endpoint: string, ctx: ProviderContext): Promise<Input> {
  const r = job.request;
  const first = inputsOf(job, "image", "first_frame");
  const last = inputsOf(job, "last_frame");
  const source = inputsOf(job, "video");
  const prompt = r.prompt ? { prompt: r.prompt } : {};
  const negative = r.negative_prompt ? { negative_prompt: r.negative_prompt } : {};
  const seed = typeof r.seed === "number" ? { seed: r.seed } : {};
  // Image modes take the picture's shape; only text-to-video names an aspect ratio.
  const aspect = job.capability === "text_to_video" ? { aspect_ratio: r.aspect_ratio } : {};
  switch (familyOf(endpoint)) {
    case "kling":
      return {
        ...prompt,
        duration: String(r.duration),
        ...aspect,
        resolution: r.resolution,
        generate_audio: r.generate_audio,
        ...negative,
        ...(first.length > 0 ? { start_image_url: (await urls(ctx, first.slice(0, 1)))[0] } : {}),
        ...(last.length > 0 ? { end_image_url: (await urls(ctx, last.slice(0, 1)))[0] } : {}),
      };
    case "pixverse":
      if (job.capability === "video_extend") {
        return {
          ...prompt,
          video_url: (await urls(ctx, source.slice(0, 1)))[0],
          duration: extensionSeconds(job),
          resolution: r.resolution,
          generate_audio_switch: r.generate_audio,
          ...negative,
          ...seed,
        };
      }
      return {
        ...prompt,
        duration: r.duration,
        ...aspect,
        resolution: r.resolution,
        generate_audio_switch: r.generate_audio,
        ...negative,
        ...seed,
        ...(first.length > 0 ? { image_url: (await urls(ctx, first.slice(0, 1)))[0] } : {}),
      };
    default:
      return {
        ...prompt,
        duration: String(r.duration),
        ...aspect,
        resolution: r.resolution,
        ...negative,
        ...seed,
        ...(first.length > 0 ? { image_url: (await urls(ctx, first.slice(0, 1)))[0] } : {}),
        ...(last.length > 0 ? { end_image_url: (await urls(ctx, last.slice(0, 1)))[0] } : {}),
        ...(source.length > 0 ? { video_url: (await urls(ctx, source.slice(0, 1)))[0] } : {}),
      };
  }
}

/** The endpoint and its input for a job; a capability fal is not wired for here is refused before anything is sent. */
/** The endpoint id a job is queued on: the card's upstream model. */
export function falEndpoint(job: ProviderJob): string {
  return job.upstream_model.replace(/^\/+|\/+$/g, "");
}

export async function falInput(job: ProviderJob, ctx: ProviderContext): Promise<{ endpoint: string; input: Input }> {
  const endpoint = falEndpoint(job);
  if (isImageJob(job)) return { endpoint, input: await imageInput(job, endpoint, ctx) };
  switch (job.capability) {
    case "text_to_video":
    case "image_to_video":
    case "frames_to_video":
    case "video_extend":
      return { endpoint, input: await videoInput(job as JobFor<VideoCapability>, endpoint, ctx) };
    default:
      throw new ProviderError("unsupported_capability", `fal is not wired for ${job.capability} here.`, { accepted: "no" });
  }
}
