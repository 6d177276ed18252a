/**
 * GPT Image models: `POST /images/generations` (JSON) for text-to-image, `POST /images/edits`
 * (multipart, the input bytes as repeated `image[]` files, up to 16, plus an optional `mask`) for
 * image-to-image and edits. These models always answer base64 (`data[].b64_json`) and report
 * token `usage`; the service measures image count and pixels itself.
 */

import { probeMedia } from "../../media/probe";
import type { ProviderContext } from "../adapter";
import { editMask } from "../edit-mask";
import { type ImageCapability, imageOutputType, type JobFor, type JobInput } from "../jobs";
import type { ProviderOutput, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { type Answer, postOnce, timeoutFor } from "./client";

/** Large, high-quality images can take a few minutes to render. */
const IMAGE_TIMEOUT_MS = 300_000;
const MAX_INPUT_IMAGES = 16;

const FORMAT_BY_MIME: Record<string, "png" | "jpeg" | "webp"> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/webp": "webp",
};

/** The requested output format as OpenAI's `output_format`; PNG (OpenAI's default) otherwise. */
export function outputFormat(job: JobFor<ImageCapability>): "png" | "jpeg" | "webp" {
  return FORMAT_BY_MIME[imageOutputType(job) ?? ""] ?? "png";
}

/** The fields both endpoints share. No quality, background or moderation: the cards offer no such control, so OpenAI's defaults apply. */
export function imageFields(job: JobFor<ImageCapability>): Record<string, string | number> {
  const { width, height } = job.request.dimensions;
  return {
    model: job.upstream_model,
    prompt: job.request.prompt,
    n: job.request.count,
    size: `${width}x${height}`,
    output_format: outputFormat(job),
  };
}

const EXT: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif" };

/** The multipart body of an edit: the stored input bytes (never the client's URLs), then the mask. */
export async function editForm(job: JobFor<ImageCapability>, ctx: ProviderContext): Promise<FormData> {
  const images = job.inputs.filter((i) => i.kind === "image");
  if (images.length === 0 || images.length > MAX_INPUT_IMAGES) {
    throw new ProviderError(
      "model_request_failed",
      `openai: an edit takes 1 to ${MAX_INPUT_IMAGES} images, this job has ${images.length}.`,
    );
  }
  const form = new FormData();
  for (const [k, v] of Object.entries(imageFields(job))) form.append(k, String(v));
  let first: Uint8Array | null = null;
  for (const [i, input] of images.entries()) {
    const bytes = await ctx.inputs.bytes(input);
    if (i === 0) first = bytes;
    form.append("image[]", new Blob([bytes], { type: input.mime }), `image-${i + 1}.${EXT[input.mime] ?? "bin"}`);
  }
  const regions = job.capability === "image_edit" ? (job.request.edit_regions ?? []).filter((r) => r.image_index === 0) : [];
  if (regions.length > 0 && first) {
    const { width, height } = dimensionsOf(images[0] as JobInput, first);
    form.append("mask", new Blob([await editMask(width, height, regions)], { type: "image/png" }), "mask.png");
  }
  return form;
}

/** The input's probed size, or read again from its bytes when the job did not carry it. */
function dimensionsOf(input: JobInput, bytes: Uint8Array): { width: number; height: number } {
  if (input.width && input.height) return { width: input.width, height: input.height };
  const probed = probeMedia(bytes, "/images/0");
  if (!probed.width || !probed.height)
    throw new ProviderError("model_request_failed", "openai: the image to edit has no readable size.");
  return { width: probed.width, height: probed.height };
}

export async function submitImages(job: JobFor<ImageCapability>, ctx: ProviderContext): Promise<Answer> {
  const timeout = timeoutFor(ctx.config, IMAGE_TIMEOUT_MS);
  if (job.capability === "text_to_image") {
    return postOnce(ctx, "/images/generations", { json: imageFields(job) }, timeout);
  }
  return postOnce(ctx, "/images/edits", { body: await editForm(job, ctx) }, timeout);
}

function invalid(what: string): ProviderError {
  return new ProviderError("model_output_invalid", `openai sent an unusable image answer: ${what}.`);
}

/** Strict base64: `atob` refuses characters outside the alphabet, where lenient decoders skip them. */
function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : undefined);

/** The staged answer as outputs. Anything missing or undecodable throws (the engine retries, then fails the task with a refund). */
export function imageResult(body: Uint8Array): ProviderResult {
  let answer: any;
  try {
    answer = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw invalid("the body is not JSON");
  }
  const data: unknown = answer?.data;
  if (!Array.isArray(data) || data.length === 0) throw invalid("no `data` images");
  const outputs: ProviderOutput[] = data.map((item: any, index: number) => {
    if (typeof item?.b64_json !== "string" || item.b64_json.length === 0) throw invalid(`image ${index} has no b64_json`);
    let bytes: Uint8Array;
    try {
      bytes = fromBase64(item.b64_json);
    } catch {
      throw invalid(`image ${index} is not valid base64`);
    }
    let probed: ReturnType<typeof probeMedia>;
    try {
      probed = probeMedia(bytes, `/data/${index}`);
    } catch {
      throw invalid(`image ${index} is not a readable image`);
    }
    if (probed.kind !== "image") throw invalid(`image ${index} is ${probed.mime}`);
    return {
      kind: "image",
      bytes,
      content_type: probed.mime,
      ...(probed.width && probed.height ? { width: probed.width, height: probed.height } : {}),
      index,
    };
  });
  const usage: Record<string, number> = {};
  const input = count(answer?.usage?.input_tokens);
  const output = count(answer?.usage?.output_tokens);
  if (input !== undefined) usage.input_tokens = input;
  if (output !== undefined) usage.output_tokens = output;
  const metadata: Record<string, unknown> = { provider: "openai" };
  for (const k of ["size", "quality", "background", "output_format"])
    if (typeof answer?.[k] === "string") metadata[k] = answer[k];
  const revised = data.map((d: any) => d?.revised_prompt).filter((p: unknown) => typeof p === "string");
  if (revised.length > 0) metadata.revised_prompts = revised;
  return { outputs, usage, metadata };
}
