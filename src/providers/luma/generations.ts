/**
 * Ray 3.2 generations on Luma's Agents API (docs.agents.lumalabs.ai "Video generation" guide and
 * API reference; SDK types GenerationCreateParams, VideoOptions, ImageRef, Generation):
 *   create  POST /generations       `{model: "ray-3.2", type: "video", prompt, aspect_ratio,
 *                                   video: {resolution, duration "5s"|"10s", start_frame, end_frame}}`
 *                                   → 201 with the Generation (`id`, `state: "queued"`)
 *   read    GET  /generations/{id}  the Generation: `state`, `failure_code`, `failure_reason`,
 *                                   `output[{type, url}]` (presigned, one hour; a new read mints new ones)
 * A frame is exactly one of `{url}`, `{data, media_type}` or `{generation_id}`. Image frames go as
 * this service's short-lived signed URLs. Extension is a 5 s generation anchored on a prior Ray 3.2
 * generation of the same account: `start_frame: {generation_id}` continues after it,
 * `end_frame: {generation_id}` leads into it; nothing else may be combined with it yet.
 * The API has no cancel or delete, no list, no seed field, and callbacks are not used (polling only).
 */

import type { ProviderContext } from "../adapter";
import type { ProviderConfig } from "../config";
import { malformed, readJson } from "../http";
import type { JobFor, JobInput, VideoCapability } from "../jobs";
import { ProviderError } from "../types";
import { lumaCall } from "./client";

export const GENERATIONS_PATH = "/generations";

export interface LumaGeneration {
  id: string;
  state: string;
  created_at?: unknown;
  failure_code?: unknown;
  failure_reason?: unknown;
  output?: unknown;
}

type Frame = { url: string } | { generation_id: string };

/** Durations `type: "video"` takes; anything anchored on a frame is 5 s (the guide's constraint matrix). */
const DURATIONS: Record<number, string> = { 5: "5s", 10: "10s" };

function refuse(message: string, code: "invalid_request" | "invalid_media" = "invalid_request"): ProviderError {
  return new ProviderError(code, `luma: ${message}`, { accepted: "no" });
}

function input(job: JobFor<VideoCapability>, ...fields: string[]): JobInput | undefined {
  return job.inputs.find((i) => fields.includes(i.field));
}

/**
 * The Luma generation an extension's source is, when the service knows it: the source is an
 * earlier output of this service made on Luma (its artifact records the generation id). Any other
 * video is refused here, before anything is sent: Luma extends only its own generations.
 */
export function sourceGenerationId(source: JobInput): string | null {
  // Only a video this service got from Luma carries a generation id Luma knows.
  return source.origin?.provider === "luma" ? source.origin.job_id : null;
}

/** The body of `POST /generations` for one job. */
export async function generationBody(job: JobFor<VideoCapability>, ctx: ProviderContext): Promise<Record<string, unknown>> {
  const r = job.request;
  const video: Record<string, unknown> = { resolution: r.resolution };
  const body: Record<string, unknown> = { model: job.upstream_model, type: "video", prompt: r.prompt };
  const frame = async (i: JobInput): Promise<Frame> => ({ url: await ctx.inputs.url(i) });

  switch (job.capability) {
    case "text_to_video": {
      const duration = DURATIONS[r.duration];
      if (!duration) throw refuse(`Ray 3.2 makes 5 s or 10 s videos, not ${r.duration} s.`);
      video.duration = duration;
      body.aspect_ratio = r.aspect_ratio;
      break;
    }
    case "image_to_video": {
      const image = input(job, "image", "first_frame");
      if (!image) throw refuse("image-to-video needs its image.");
      // The image sets the framing: no aspect_ratio, so Luma follows it ("model picks").
      video.duration = "5s";
      video.start_frame = await frame(image);
      break;
    }
    case "frames_to_video": {
      const first = input(job, "first_frame", "image");
      const last = input(job, "last_frame");
      if (!first && !last) throw refuse("frames-to-video needs a first or a last frame.");
      video.duration = "5s";
      if (first) video.start_frame = await frame(first);
      if (last) video.end_frame = await frame(last);
      break;
    }
    case "video_extend": {
      const source = input(job, "video");
      if (!source) throw refuse("an extension needs its source video.");
      const id = sourceGenerationId(source);
      if (!id)
        throw refuse(
          "Ray 3.2 extends only its own earlier generations (by generation id); this source video is not one the service can name to Luma.",
          "invalid_media",
        );
      video.duration = "5s";
      // After: the new clip continues from the source's last frame; before: it ends on its first.
      if (r.direction === "before") video.end_frame = { generation_id: id };
      else video.start_frame = { generation_id: id };
      break;
    }
    case "reference_to_video":
      throw refuse("reference-to-video is not offered on Ray 3.2.");
  }
  body.video = video;
  return body;
}

/** A generation as Luma documents it, or a malformed answer. */
export function asGeneration(config: ProviderConfig, value: unknown): LumaGeneration {
  const g = value as Record<string, unknown> | null;
  if (!g || typeof g !== "object") throw malformed(config, "a generation that is not an object");
  if (typeof g.id !== "string" || !g.id) throw malformed(config, "a generation without an id");
  if (typeof g.state !== "string" || !g.state) throw malformed(config, "a generation without a state");
  return g as unknown as LumaGeneration;
}

export async function createGeneration(config: ProviderConfig, body: Record<string, unknown>): Promise<LumaGeneration> {
  // A submission is never repeated here: the task object decides after a refusal.
  const res = await lumaCall(config, { method: "POST", path: GENERATIONS_PATH, json: body, retries: 0 });
  try {
    return asGeneration(config, await readJson(config, res));
  } catch (e) {
    // Luma answered 2xx, so it may hold a job we cannot name: not a clean refusal.
    if (e instanceof ProviderError)
      throw new ProviderError(e.code, e.message, { retryable: true, accepted: "unknown", malformed: true, status: res.status });
    throw e;
  }
}

export async function readGeneration(config: ProviderConfig, id: string): Promise<LumaGeneration> {
  const res = await lumaCall(config, { path: `${GENERATIONS_PATH}/${encodeURIComponent(id)}`, retries: 2 });
  return asGeneration(config, await readJson(config, res));
}

/** The video's presigned URL in a completed generation, or null. */
export function videoUrl(g: LumaGeneration): string | null {
  if (!Array.isArray(g.output)) return null;
  const items = g.output.filter(
    (o): o is { type?: unknown; url: string } => !!o && typeof o === "object" && typeof (o as { url?: unknown }).url === "string",
  );
  const video = items.find((o) => o.type === "video") ?? items.find((o) => o.type === undefined);
  return video?.url ?? null;
}
