/**
 * The built-in sandbox provider: an honest simulator that needs no upstream account. It is
 * stateless — progress follows the time since submission along a per-capability latency
 * profile — and deterministic for a given request and seed.
 *
 * Fault injection (only where SANDBOX_FAULT_INJECTION is "true", as in local development and
 * tests): a task whose metadata has `sandbox_fault` naming FAULTS (comma-separated) behaves accordingly.
 */

import { decode } from "fast-png";
import type { Capability } from "../../catalog/schema";
import type { Env } from "../../env";
import { hash32 } from "../../lib/random";
import { SANDBOX_OUTPUT_FORMATS } from "../../media/encode/formats";
import type { ImageCapability, JobFor } from "../jobs";
import { PROVIDERS } from "../names";
import type { ProviderAdapter, ProviderContext, ProviderHandle, ProviderJob, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { deriveImage, encodeImage, type Region, renderImage, type SandboxImageType } from "./images";
import { music, speech, video } from "./media";
import { enhancePrompt, imageToText, type StoredInput, videoToText } from "./understanding";

export const FAULTS = [
  "provider_error",
  "rate_limited",
  "content_filtered",
  "output_download",
  "uncancelable",
  "hang",
  "stay_queued",
] as const;
export type Fault = (typeof FAULTS)[number];

/** Typical time to finish, in milliseconds, before SANDBOX_LATENCY_SCALE. */
const LATENCY_MS: Partial<Record<Capability, number>> = {
  text_to_image: 4000,
  image_to_image: 4000,
  image_edit: 5000,
  image_to_text: 2000,
  video_prompt_enhance: 2000,
  text_to_video: 12000,
  image_to_video: 12000,
  reference_to_video: 15000,
  frames_to_video: 12000,
  video_extend: 10000,
  video_to_text: 4000,
  text_to_music: 10000,
  text_to_speech: 3000,
};
const DEFAULT_LATENCY_MS = 3000;

/** The faults a job asks for: `metadata.sandbox_fault`, comma-separated (e.g. "uncancelable,hang"). */
function faults(job: ProviderJob, ctx: ProviderContext): Set<Fault> {
  if (ctx.env.SANDBOX_FAULT_INJECTION !== "true") return new Set();
  const asked = (job.metadata.sandbox_fault ?? "").split(",").map((f) => f.trim());
  return new Set(FAULTS.filter((f) => asked.includes(f)));
}

function latency(job: ProviderJob, ctx: ProviderContext): number {
  const scale = Number(ctx.env.SANDBOX_LATENCY_SCALE ?? "1");
  return (LATENCY_MS[job.capability] ?? DEFAULT_LATENCY_MS) * (Number.isFinite(scale) && scale >= 0 ? scale : 1);
}

/** Until the next tenth of the profile, at least 250 ms apart, never past the end. */
function nextPollMs(elapsed: number, total: number): number {
  const tenth = total / 10;
  const nextMark = (Math.floor(elapsed / tenth) + 1) * tenth;
  return Math.ceil(Math.min(total - elapsed, Math.max(250, nextMark - elapsed)));
}

/** The simulators read requests field by field, whatever the capability. */
function loose(request: object): Record<string, unknown> {
  return request as Record<string, unknown>;
}

function seedOf(job: ProviderJob): number {
  const seed = (job.request as { seed?: unknown }).seed;
  return typeof seed === "number" ? seed >>> 0 : hash32(job.task_id);
}

function inputsOf(job: ProviderJob): StoredInput[] {
  return job.inputs;
}

/** The picture an image-to-image or edit output derives from, decoded when it is a PNG. */
async function basePicture(job: ProviderJob, env: Env) {
  const images = inputsOf(job).filter((i) => i.kind === "image");
  const base = job.capability === "image_edit" ? images[0] : images[images.length - 1];
  if (base?.mime !== "image/png") return null;
  const object = await env.ARTIFACTS.get(base.key);
  if (!object) return null;
  const png = decode(new Uint8Array(await object.arrayBuffer()));
  const data = png.depth === 16 ? Uint8Array.from(png.data as Uint16Array, (v) => v >> 8) : (png.data as Uint8Array);
  return { width: png.width, height: png.height, channels: png.channels, data };
}

async function images(job: JobFor<ImageCapability>, env: Env): Promise<ProviderResult> {
  const request = job.request;
  const dims = request.dimensions;
  const count = Number(request.count ?? 1);
  const base = job.capability === "text_to_image" ? null : await basePicture(job, env);
  const regions = ((request.edit_regions as (Region & { image_index: number })[] | undefined) ?? []).filter(
    (r) => r.image_index === 0,
  );
  // The format admission resolved: the request's output_format, else the card's default.
  const format = request.output_format ?? job.card.outputs?.format ?? "image/png";
  if (!(SANDBOX_OUTPUT_FORMATS.image as readonly string[]).includes(format))
    throw new ProviderError("unsupported_option", `sandbox: ${format} output is not simulated`);
  const outputs = [];
  for (let index = 0; index < count; index++) {
    const spec = {
      width: dims.width,
      height: dims.height,
      seed: seedOf(job),
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

export const sandboxAdapter: ProviderAdapter = {
  name: "sandbox",
  defaultBaseUrl: "",
  capabilities: PROVIDERS.sandbox?.media ?? [],
  chat: true,

  async submit(job, ctx) {
    return { job_id: `sbx_${hash32(job.task_id).toString(16)}`, submitted_at: ctx.now };
  },

  async poll(handle: ProviderHandle, job, ctx) {
    const f = faults(job, ctx);
    const total = latency(job, ctx);
    const elapsed = ctx.now - handle.submitted_at;
    const percent = total <= 0 ? 100 : Math.min(100, Math.floor((elapsed / total) * 100));
    if (f.has("provider_error"))
      return {
        state: "failed",
        error: { code: "model_request_failed", message: "sandbox: the simulated upstream returned 500 Internal Server Error" },
      };
    if (f.has("rate_limited"))
      return {
        state: "failed",
        error: { code: "model_rate_limited", message: "sandbox: the simulated upstream is rate-limited (429)" },
      };
    if (f.has("content_filtered") && percent >= 50) {
      return {
        state: "failed",
        error: { code: "content_filtered", message: "sandbox: the simulated safety filter blocked the output mid-generation" },
      };
    }
    if (f.has("stay_queued"))
      return { state: "queued", progress: { percent: 0, stage: "queued", message: "sandbox: waiting in the simulated queue" } };
    if (f.has("hang"))
      return { state: "running", progress: { percent: 50, stage: "generating", message: "sandbox: simulated stall" } };
    if (percent >= 100) return { state: "succeeded" };
    // Like an upstream that publishes its estimate: ask again when progress next moves a tenth
    // (or when the job ends), not on a blind backoff that finishes late and polls for nothing.
    const poll_after_ms = nextPollMs(elapsed, total);
    // The first tenth of the profile is time in the provider's queue.
    if (percent < 10)
      return { state: "queued", progress: { percent: 0, stage: "queued", message: "sandbox: queued" }, poll_after_ms };
    return {
      state: "running",
      progress: { percent: Math.max(1, Math.min(95, percent)), stage: "generating", message: "sandbox: generating" },
      poll_after_ms,
    };
  },

  async fetchResult(_handle, job, ctx) {
    if (faults(job, ctx).has("output_download"))
      throw new ProviderError("model_output_invalid", "sandbox: the simulated output URL returned 404");
    switch (job.capability) {
      case "text_to_image":
      case "image_to_image":
      case "image_edit":
        return images(job, ctx.env);
      case "image_to_text":
        return imageToText(ctx.env, loose(job.request), inputsOf(job));
      case "video_prompt_enhance":
        return enhancePrompt(loose(job.request));
      case "video_to_text":
        return videoToText(loose(job.request), inputsOf(job));
      case "text_to_video":
      case "image_to_video":
      case "reference_to_video":
      case "frames_to_video":
      case "video_extend":
        return video(ctx.env, job.capability, loose(job.request), inputsOf(job), seedOf(job));
      case "text_to_music":
        return music(
          loose(job.request),
          seedOf(job),
          ctx.env.SANDBOX_MUSIC_SECONDS ? Number(ctx.env.SANDBOX_MUSIC_SECONDS) : undefined,
        );
      case "text_to_speech":
        return speech(loose(job.request), seedOf(job));
    }
  },

  async cancel(_handle, job, ctx) {
    return faults(job, ctx).has("uncancelable") ? "not_cancelable" : "canceled";
  },
};
