/**
 * The sandbox's outputs for a finished job, by capability: images, video, music and speech from
 * the encoders in ./encode, and answers computed from the inputs. Deterministic for a request and
 * seed. Runs in the sandbox Worker; the API's sandbox adapter asks for it over the binding.
 */
import { decode } from "fast-png";
import { SANDBOX_OUTPUT_FORMATS } from "../media/output-formats";
import type { SandboxInput, SandboxJob } from "../providers/sandbox-contract";
import { ProviderError, type ProviderResult } from "../providers/types";
import { deriveImage, encodeImage, type Region, renderImage, type SandboxImageType } from "./images";
import { music, speech, video } from "./media";
import { enhancePrompt, imageToText, videoToText } from "./understanding";

/** The simulators read requests field by field, whatever the capability. */
type Loose = Record<string, any>;

/** The picture an image-to-image or edit output derives from, decoded when it is a PNG. */
function basePicture(job: SandboxJob) {
  const images = job.inputs.filter((i) => i.kind === "image");
  const base: SandboxInput | undefined = job.capability === "image_edit" ? images[0] : images[images.length - 1];
  if (base?.mime !== "image/png" || !base.data) return null;
  const png = decode(base.data);
  const data = png.depth === 16 ? Uint8Array.from(png.data as Uint16Array, (v) => v >> 8) : (png.data as Uint8Array);
  return { width: png.width, height: png.height, channels: png.channels, data };
}

async function images(job: SandboxJob): Promise<ProviderResult> {
  const request = job.request as Loose;
  const dims = request.dimensions as { width: number; height: number };
  const count = Number(request.count ?? 1);
  const base = job.capability === "text_to_image" ? null : basePicture(job);
  const regions = ((request.edit_regions as (Region & { image_index: number })[] | undefined) ?? []).filter(
    (r) => r.image_index === 0,
  );
  // The format admission resolved: the request's output_format, else the card's default.
  const format = request.output_format ?? job.card_format ?? "image/png";
  if (!(SANDBOX_OUTPUT_FORMATS.image as readonly string[]).includes(format))
    throw new ProviderError("unsupported_option", `sandbox: ${format} output is not simulated`);
  const outputs = [];
  for (let index = 0; index < count; index++) {
    const spec = {
      width: dims.width,
      height: dims.height,
      seed: job.seed,
      prompt: String(request.prompt ?? ""),
      index,
      count,
      palette: request.palette,
      sequence: request.output_relationship === "sequence",
    };
    const pixels = base ? deriveImage(base, spec, regions) : renderImage(spec);
    const file = await encodeImage(format as SandboxImageType, dims.width, dims.height, pixels);
    outputs.push({
      kind: "image" as const,
      content_type: file.type,
      bytes: file.bytes,
      width: dims.width,
      height: dims.height,
      index,
    });
  }
  return {
    outputs,
    usage: { image_count: count, image_pixels: dims.width * dims.height * count },
    metadata: {
      simulated: true,
      provider: "sandbox",
      note: "built-in simulator output, not a real model",
      ...(job.capability !== "text_to_image" ? { derived_from_input: base !== null } : {}),
    },
  };
}

export async function render(job: SandboxJob): Promise<ProviderResult> {
  const request = job.request as Loose;
  switch (job.capability) {
    case "text_to_image":
    case "image_to_image":
    case "image_edit":
      return images(job);
    case "image_to_text":
      return imageToText(request, job.inputs);
    case "video_prompt_enhance":
      return enhancePrompt(request);
    case "video_to_text":
      return videoToText(request, job.inputs);
    case "text_to_video":
    case "image_to_video":
    case "reference_to_video":
    case "frames_to_video":
    case "video_extend":
      return video(job.capability, request, job.inputs, job.seed);
    case "text_to_music":
      return music(request, job.seed, job.music_seconds);
    case "text_to_speech":
      return speech(request, job.seed);
  }
  throw new ProviderError("unsupported_option", `sandbox: ${job.capability} is not simulated`);
}
