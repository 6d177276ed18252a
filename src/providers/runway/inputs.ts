/**
 * A typed image-to-video job as the body of `POST /v1/image_to_video`, per the SDK's
 * `ImageToVideoCreateParams.Gen4Turbo` (runwayml/sdk-node src/resources/image-to-video.ts):
 * `model`, `promptImage` (an HTTPS URL or a data URI), `promptText` (non-empty, at most 1,000
 * UTF-16 code units), `ratio` (output pixels as "W:H"), `duration` (seconds) and `seed`.
 * `contentModeration` keeps Runway's default. The start frame goes as a short-lived signed URL of
 * this service. What Runway cannot make exactly is refused before anything is sent.
 */
import { dataUriOf } from "../../lib/base64";
import type { ProviderContext } from "../adapter";
import type { JobFor, JobInput } from "../jobs";
import { ProviderError } from "../types";

/**
 * The card's aspect ratios at 720p in Runway's words. The six pixel sizes are the Gen-4 Turbo
 * `ratio` values the SDK lists; each is matched to the named aspect it approximates
 * (1104:832 ≈ 4:3, 1584:672 ≈ 21:9).
 */
export const RATIOS_720P: Readonly<Record<string, string>> = {
  "16:9": "1280:720",
  "9:16": "720:1280",
  "4:3": "1104:832",
  "3:4": "832:1104",
  "1:1": "960:960",
  "21:9": "1584:672",
};

/** Runway's prompt limit, counted in UTF-16 code units (JavaScript's `length`). */
export const PROMPT_MAX_UNITS = 1000;
export const SEED_MAX = 4_294_967_295;

function refuse(message: string): ProviderError {
  return new ProviderError("unsupported_option", `runway: ${message}`, { retryable: false, accepted: "no" });
}

/** Runway's ratio string for an aspect ratio and resolution tier, or undefined when it has none. */
export function ratioOf(aspect: string, resolution: string): string | undefined {
  return resolution === "720p" ? RATIOS_720P[aspect] : undefined;
}

export async function runwayBody(job: JobFor<"image_to_video">, ctx: ProviderContext): Promise<Record<string, unknown>> {
  const r = job.request;
  const images = job.inputs.filter((i) => i.kind === "image");
  const start = images[0];
  if (!start || images.length > 1) throw refuse(`${job.upstream_model} takes exactly one start image (got ${images.length}).`);
  const ratio = ratioOf(r.aspect_ratio, r.resolution);
  if (!ratio) throw refuse(`${job.upstream_model} has no ${r.aspect_ratio} output at ${r.resolution}.`);
  const prompt = r.prompt.trim();
  if (!prompt) throw refuse("the prompt must not be empty.");
  if (r.prompt.length > PROMPT_MAX_UNITS) throw refuse(`the prompt is longer than ${PROMPT_MAX_UNITS} UTF-16 code units.`);
  if (!Number.isInteger(r.duration) || r.duration < 1) throw refuse(`a duration of ${r.duration} s cannot be made.`);
  if (r.seed !== undefined && (!Number.isInteger(r.seed) || r.seed < 0 || r.seed > SEED_MAX)) {
    throw refuse(`the seed must be an integer from 0 to ${SEED_MAX}.`);
  }
  return {
    model: job.upstream_model,
    promptImage: await promptImage(ctx, start),
    promptText: r.prompt,
    ratio,
    duration: r.duration,
    ...(r.seed !== undefined ? { seed: r.seed } : {}),
  };
}

/**
 * Runway fetches only HTTPS URLs on a domain: where this deployment's input URLs are not (local
 * development on 127.0.0.1), the image goes inline as a data URI, which Runway also takes.
 */
async function promptImage(ctx: ProviderContext, input: JobInput): Promise<string> {
  const url = await ctx.inputs.url(input);
  return url.startsWith("https://") ? url : dataUriOf(input.mime, await ctx.inputs.bytes(input));
}
