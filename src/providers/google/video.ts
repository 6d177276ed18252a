/**
 * Video generation as a long-running operation, in the shapes the Gemini API gives Veo
 * (`predictLongRunning`; field names as the official SDK sends them in Gemini API mode):
 *
 *   POST /v1beta/models/{model}:predictLongRunning
 *     {instances: [{prompt, image?, lastFrame?, referenceImages?: [{image, referenceType: ASSET|STYLE}], video?}],
 *      parameters: {sampleCount: 1, durationSeconds, aspectRatio?, resolution, negativePrompt?, seed?}}
 *     images: {bytesBase64Encoded, mimeType}; video: {encodedVideo, encoding} or {uri} of an uploaded file
 *   → Operation {name: "models/{model}/operations/{id}"}; its name is the job id.
 *   GET /v1beta/{name} → {name, done?, error?: google.rpc.Status, response?: {generateVideoResponse:
 *     {generatedSamples: [{video: {uri}}], raiMediaFilteredCount?, raiMediaFilteredReasons?}}}
 *
 * `done` is omitted while the operation runs (proto3 leaves false out), and operations carry no
 * other state: anything not done is running, with progress estimated from elapsed time. A done
 * operation with samples succeeds; without samples but with raiMediaFiltered* Google's filters
 * removed the video → content_filtered (refunded, never a success); with neither it is malformed.
 * The sample URIs (`…/v1beta/files/{id}:download?alt=media`) need the API key: they are handed to
 * the service's downloader with the `x-goog-api-key` header, only when they are on the configured
 * API host, and the downloader drops the header on the redirect to storage.
 *
 * Not sent: `generateAudio` (the cards allow only true, the model's default, and the SDK refuses
 * the field in Gemini API mode) and `personGeneration` (no card control). The Gemini API binds
 * `google.longrunning.Operations.CancelOperation` for batches only, not for model operations, so
 * a running video cannot be stopped: cancel answers not_cancelable.
 */

import type { ErrorCode } from "../../errors/codes";
import { toBase64 } from "../../lib/base64";
import type { ProviderContext } from "../adapter";
import { malformed, readJson } from "../http";
import type { JobFor, JobInput, VideoCapability, VideoRequest } from "../jobs";
import { safeProviderMessage } from "../messages";
import { growingDelay, paceOf } from "../pace";
import type { PollResult, ProviderHandle, ProviderOutput, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { API_VERSION, fromBase64, googleCall, modelPath, waitFromStart } from "./client";
import { deleteFiles, place, type UploadedFile } from "./files";

/** The cards' resolution tiers as the API names them. */
const RESOLUTION: Record<string, string> = { "2160p": "4k" };
/** A typical generation, for progress that moves while the operation reports none. */
const TYPICAL_MS = 120_000;

type VideoJob = JobFor<VideoCapability>;

function inputs(job: VideoJob, ...fields: string[]): JobInput[] {
  return job.inputs.filter((i) => fields.includes(i.field));
}

/** Seconds of new video an extension asks for: the final length less the source's. */
export function extensionSeconds(job: VideoJob): number {
  const r = job.request as VideoRequest;
  const source = r.source_duration ?? inputs(job, "video")[0]?.duration_seconds ?? 0;
  return Math.max(1, Math.ceil(r.duration - source));
}

async function image(ctx: ProviderContext, input: JobInput): Promise<Record<string, unknown>> {
  return { bytesBase64Encoded: toBase64(await ctx.inputs.bytes(input)), mimeType: input.mime };
}

/** A card role as Veo's reference type: style references set the look, every other kind is an asset. */
function referenceType(role: string | undefined): "ASSET" | "STYLE" {
  return role === "style" ? "STYLE" : "ASSET";
}

export async function videoBody(job: VideoJob, ctx: ProviderContext, uploaded: UploadedFile[]): Promise<Record<string, unknown>> {
  const r = job.request;
  const instance: Record<string, unknown> = {};
  if (r.prompt) instance.prompt = r.prompt;
  switch (job.capability) {
    case "image_to_video": {
      const first = inputs(job, "image", "first_frame")[0];
      if (first) instance.image = await image(ctx, first);
      break;
    }
    case "frames_to_video": {
      const first = inputs(job, "first_frame", "image")[0];
      const last = inputs(job, "last_frame")[0];
      if (first) instance.image = await image(ctx, first);
      if (last) instance.lastFrame = await image(ctx, last);
      break;
    }
    case "reference_to_video": {
      const refs = inputs(job, "references");
      const videos = refs.filter((i) => i.kind !== "image");
      if (videos.length > 0) {
        // Gemini API mode takes reference images only; a video reference cannot be expressed.
        throw new ProviderError(
          "unsupported_input_modality",
          "google: predictLongRunning takes image references only; this job has a video reference.",
        );
      }
      instance.referenceImages = await Promise.all(
        refs.map(async (i) => ({ image: await image(ctx, i), referenceType: referenceType(i.role) })),
      );
      break;
    }
    case "video_extend": {
      const source = inputs(job, "video")[0];
      if (!source) throw new ProviderError("model_request_failed", "google: an extension needs its source video.");
      const placed = await place(ctx, source, uploaded);
      instance.video =
        "inline" in placed ? { encodedVideo: placed.inline.base64, encoding: source.mime } : { uri: placed.file.uri };
      break;
    }
    default:
      break;
  }
  const named =
    job.capability === "text_to_video" || job.capability === "image_to_video" || job.capability === "reference_to_video";
  return {
    instances: [instance],
    parameters: {
      sampleCount: 1,
      durationSeconds: job.capability === "video_extend" ? extensionSeconds(job) : r.duration,
      ...(named && r.aspect_ratio ? { aspectRatio: r.aspect_ratio } : {}),
      resolution: RESOLUTION[r.resolution] ?? r.resolution,
      ...(r.negative_prompt ? { negativePrompt: r.negative_prompt } : {}),
      ...(typeof r.seed === "number" ? { seed: r.seed } : {}),
    },
  };
}

export async function submitVideo(job: VideoJob, ctx: ProviderContext): Promise<ProviderHandle> {
  const config = ctx.config;
  const uploaded: UploadedFile[] = [];
  let res: Response;
  try {
    res = await googleCall(config, {
      method: "POST",
      path: `${modelPath(job.upstream_model)}:predictLongRunning`,
      json: await videoBody(job, ctx, uploaded),
      retries: 0,
    });
  } catch (e) {
    // Refused (or never sent): nothing will read the uploaded source.
    if (uploaded.length > 0) await deleteFiles(ctx, uploaded);
    throw waitFromStart(ctx, e);
  }
  let name: unknown;
  try {
    name = ((await readJson(config, res)) as { name?: unknown } | null)?.name;
  } catch (e) {
    // Accepted, but the answer cannot be read: the operation may exist.
    throw new ProviderError("model_request_failed", e instanceof Error ? e.message : String(e), {
      retryable: true,
      accepted: "unknown",
    });
  }
  if (typeof name !== "string" || !/^[A-Za-z0-9._/-]{1,300}$/.test(name) || name.includes("..")) {
    throw new ProviderError("model_request_failed", `${config.name} answered predictLongRunning without an operation name.`, {
      retryable: true,
      accepted: "unknown",
      malformed: true,
    });
  }
  return {
    job_id: name,
    submitted_at: ctx.now,
    data: { kind: "operation", ...(uploaded.length > 0 ? { files: uploaded.map((f) => f.name).join(",") } : {}) },
  };
}

// ---------------------------------------------------------------- operations

interface Operation {
  name?: unknown;
  done?: unknown;
  error?: { code?: unknown; message?: unknown; status?: unknown };
  response?: { generateVideoResponse?: GenerateVideoResponse };
}

interface GenerateVideoResponse {
  generatedSamples?: unknown;
  raiMediaFilteredCount?: unknown;
  raiMediaFilteredReasons?: unknown;
}

async function readOperation(ctx: ProviderContext, handle: ProviderHandle): Promise<Operation> {
  const res = await googleCall(ctx.config, { path: `/${API_VERSION}/${handle.job_id}`, retries: 2 });
  const op = await readJson<Operation>(ctx.config, res);
  if (!op || typeof op !== "object" || Array.isArray(op)) throw malformed(ctx.config, "the operation is not an object");
  return op;
}

/** google.rpc.Code of a failed operation in the service's terms. */
export function codeForRpc(code: unknown): ErrorCode {
  switch (code) {
    case 4: // DEADLINE_EXCEEDED
      return "model_timeout";
    case 8: // RESOURCE_EXHAUSTED
      return "model_rate_limited";
    case 7: // PERMISSION_DENIED
    case 14: // UNAVAILABLE
    case 16: // UNAUTHENTICATED
      return "model_unavailable";
    default: // CANCELLED, UNKNOWN, INVALID_ARGUMENT, FAILED_PRECONDITION, INTERNAL, …
      return "model_request_failed";
  }
}

const RPC_WORDS: Record<number, string> = {
  1: "CANCELLED",
  2: "UNKNOWN",
  3: "INVALID_ARGUMENT",
  4: "DEADLINE_EXCEEDED",
  5: "NOT_FOUND",
  7: "PERMISSION_DENIED",
  8: "RESOURCE_EXHAUSTED",
  9: "FAILED_PRECONDITION",
  13: "INTERNAL",
  14: "UNAVAILABLE",
  16: "UNAUTHENTICATED",
};

interface Sample {
  uri?: string;
  bytes?: string;
  mimeType?: string;
}

function samplesOf(response: GenerateVideoResponse | undefined): Sample[] {
  const list = response?.generatedSamples;
  if (!Array.isArray(list)) return [];
  return list.flatMap((s) => {
    const v = (s as { video?: Record<string, unknown> } | null)?.video;
    if (!v || typeof v !== "object") return [];
    const uri = typeof v.uri === "string" && /^https?:\/\//.test(v.uri) ? v.uri : undefined;
    const bytes = typeof v.encodedVideo === "string" && v.encodedVideo ? v.encodedVideo : undefined;
    if (!uri && !bytes) return [];
    return [{ uri, bytes, mimeType: typeof v.encoding === "string" ? v.encoding : undefined }];
  });
}

function filtered(response: GenerateVideoResponse | undefined): string | null {
  const n = typeof response?.raiMediaFilteredCount === "number" ? response.raiMediaFilteredCount : 0;
  const reasons = Array.isArray(response?.raiMediaFilteredReasons)
    ? (response.raiMediaFilteredReasons as unknown[]).filter((r): r is string => typeof r === "string" && r.length > 0)
    : [];
  if (n <= 0 && reasons.length === 0) return null;
  return reasons.length > 0 ? reasons.join(" ").slice(0, 500) : `${n} video(s) removed by the safety filters`;
}

function percentAfter(elapsedMs: number): number {
  return Math.floor(Math.min(90, 5 + 85 * (1 - Math.exp(-elapsedMs / TYPICAL_MS))));
}

/** How long to wait before the next status read: short at first, longer as a job grows old; `pace` scales it (../pace.ts). */
function pollDelay(elapsedMs: number, pace: number): number {
  return growingDelay(elapsedMs, 1_000, 10_000, pace);
}

async function cleanUp(ctx: ProviderContext, handle: ProviderHandle): Promise<void> {
  const names = (handle.data?.files ?? "").split(",").filter((n) => /^files\/[A-Za-z0-9_-]+$/.test(n));
  if (names.length > 0)
    await deleteFiles(
      ctx,
      names.map((name) => ({ name, uri: "", mimeType: "" })),
    );
}

export async function pollVideo(handle: ProviderHandle, ctx: ProviderContext): Promise<PollResult> {
  const op = await readOperation(ctx, handle);
  const secrets = [ctx.config.apiKey];
  if (op.error && typeof op.error === "object") {
    await cleanUp(ctx, handle);
    const code = typeof op.error.code === "number" ? op.error.code : undefined;
    const word = typeof op.error.status === "string" ? op.error.status : code !== undefined ? RPC_WORDS[code] : undefined;
    const message = typeof op.error.message === "string" ? op.error.message : "the operation failed";
    return {
      state: "failed",
      error: {
        code: codeForRpc(code),
        message: `google: ${safeProviderMessage(message, secrets, 500)}${word ? ` (${word})` : ""}`,
      },
    };
  }
  if (op.done !== true) {
    const elapsed = Math.max(0, ctx.now - handle.submitted_at);
    return {
      state: "running",
      progress: { percent: percentAfter(elapsed), stage: "generating", message: "Generating at google" },
      poll_after_ms: pollDelay(elapsed, paceOf(ctx.env)),
    };
  }
  const response = op.response?.generateVideoResponse;
  if (samplesOf(response).length > 0) {
    await cleanUp(ctx, handle);
    return { state: "succeeded" };
  }
  const why = filtered(response);
  if (why) {
    await cleanUp(ctx, handle);
    return {
      state: "failed",
      error: {
        code: "content_filtered",
        message: `google's safety filters removed the video: ${safeProviderMessage(why, secrets, 500)}`,
      },
    };
  }
  throw malformed(ctx.config, "the operation is done without an error, a video or a filter report");
}

/**
 * Where to download a sample, and whether the key goes along. Google's own download URIs
 * (`…/v1beta/files/{id}:download?alt=media`) are rebuilt on the configured API host, as the
 * official SDK downloads them, and carry the key; any other URI is fetched as it is, without it.
 */
export function downloadOf(uri: string, config: ProviderContext["config"]): { url: string; headers?: Record<string, string> } {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return { url: uri };
  }
  const file = /^\/v1beta\/files\/([A-Za-z0-9_-]{1,128}):download$/.exec(parsed.pathname)?.[1];
  if (file)
    return {
      url: `${config.baseUrl}/${API_VERSION}/files/${file}:download?alt=media`,
      headers: { "x-goog-api-key": config.apiKey },
    };
  let base: URL | null = null;
  try {
    base = new URL(config.baseUrl);
  } catch {}
  return base && parsed.origin === base.origin ? { url: uri, headers: { "x-goog-api-key": config.apiKey } } : { url: uri };
}

export async function videoResult(handle: ProviderHandle, job: VideoJob, ctx: ProviderContext): Promise<ProviderResult> {
  const op = await readOperation(ctx, handle);
  const samples = samplesOf(op.response?.generateVideoResponse).slice(0, 1);
  if (op.done !== true || samples.length === 0) throw malformed(ctx.config, "the finished operation names no video");
  const outputs: ProviderOutput[] = samples.map((s, index) => {
    if (s.uri) {
      // The key goes only to the API's own host, never to a host an answer names.
      return { kind: "video", ...downloadOf(s.uri, ctx.config), content_type: "video/mp4", index };
    }
    let bytes: Uint8Array;
    try {
      bytes = fromBase64(s.bytes as string);
    } catch {
      throw new ProviderError("model_output_invalid", "google sent an inline video that is not base64.");
    }
    const type = s.mimeType && /^video\/[a-z0-9.+-]+$/i.test(s.mimeType) ? s.mimeType : "video/mp4";
    return { kind: "video", bytes, content_type: type, index };
  });
  return {
    outputs,
    usage: job.capability === "video_extend" ? { generated_video_seconds: extensionSeconds(job) } : {},
    metadata: { provider: "google", operation: handle.job_id },
  };
}
