/**
 * A typed image job as the input of black-forest-labs/flux-2-pro on Replicate, per the model's
 * published input schema (replicate.com/black-forest-labs/flux-2-pro/api):
 *   prompt            the prompt; a palette is written into it as hex colours (FLUX.2's colour control)
 *   aspect_ratio      "custom", so that width/height are honoured exactly as the card resolved them
 *   width, height     256-2048 px, multiples of 16 (Replicate rounds others, which would change the size)
 *   input_images      up to 8 image URLs, in the job's order: short-lived signed URLs served by this
 *                     service, never the client's own URL
 *   seed              the request's; without one, a seed derived from the task id. An unseeded run
 *                     takes a random seed anyway, so nothing changes for the caller, and the seed
 *                     marks the prediction as this task's where the input has nothing else of ours
 *                     (reconcile.ts finds a lost submission by its input)
 *   output_format     the card's output format: jpg, png or webp
 * Not sent: safety_tolerance and output_quality (the model's defaults apply), and prompt_upsampling,
 * which the current flux-2-pro schema on Replicate no longer lists.
 */

import type { ProviderContext } from "../adapter";
import { type ImageCapability, imageOutputType, type JobFor } from "../jobs";
import { ProviderError } from "../types";

export const EDGE_MIN = 256;
export const EDGE_MAX = 2048;
export const EDGE_MULTIPLE = 16;
export const MAX_INPUT_IMAGES = 8;

const OUTPUT_FORMATS: Record<string, string> = { "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp" };

/** The palette as FLUX.2 reads colours: hex codes named in the prompt, most prominent first. */
export function promptWithPalette(prompt: string, palette: { color: string; weight: number }[] | undefined): string {
  const colours = (palette ?? [])
    .filter((p) => /^#[0-9a-f]{6}$/i.test(p.color))
    .sort((a, b) => b.weight - a.weight)
    .map((p) => p.color.toUpperCase());
  if (colours.length === 0) return prompt;
  return `${prompt}\n\nColour palette, most to least prominent: ${colours.join(", ")}.`;
}

function fits(edge: number): boolean {
  return Number.isInteger(edge) && edge >= EDGE_MIN && edge <= EDGE_MAX && edge % EDGE_MULTIPLE === 0;
}

/** A seed of this task's own (FNV-1a of its id, 31 bits): the same on every computation of its input. */
export function markerSeed(taskId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < taskId.length; i++) h = Math.imul(h ^ taskId.charCodeAt(i), 0x01000193);
  return (h >>> 0) & 0x7fffffff;
}

export async function predictionInput(job: JobFor<ImageCapability>, ctx: ProviderContext): Promise<Record<string, unknown>> {
  const request = job.request;
  const { width, height } = request.dimensions;
  if (!fits(width) || !fits(height)) {
    throw new ProviderError(
      "unsupported_option",
      `replicate: ${width}x${height} cannot be made exactly by ${job.upstream_model} on Replicate (each side ${EDGE_MIN}-${EDGE_MAX} px, a multiple of ${EDGE_MULTIPLE}).`,
      { retryable: false, accepted: "no" },
    );
  }
  const images = job.inputs.filter((i) => i.kind === "image");
  if (images.length > MAX_INPUT_IMAGES) {
    throw new ProviderError(
      "unsupported_option",
      `replicate: ${job.upstream_model} takes at most ${MAX_INPUT_IMAGES} input images.`,
      {
        retryable: false,
        accepted: "no",
      },
    );
  }
  const input: Record<string, unknown> = {
    prompt: promptWithPalette(request.prompt, request.palette),
    aspect_ratio: "custom",
    width,
    height,
  };
  if (images.length > 0) input.input_images = await Promise.all(images.map((i) => ctx.inputs.url(i)));
  input.seed = typeof request.seed === "number" ? request.seed : markerSeed(job.task_id);
  const format = OUTPUT_FORMATS[imageOutputType(job) ?? ""];
  if (format) input.output_format = format;
  return input;
}
