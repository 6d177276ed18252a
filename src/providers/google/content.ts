/**
 * generateContent for media jobs: image generation and editing with the Gemini image models, and
 * image and video understanding.
 *
 * Images: `POST /v1beta/models/{model}:generateContent` with the prompt and the input images as
 * `inlineData` parts, and `generationConfig.responseModalities: ["TEXT", "IMAGE"]` with
 * `imageConfig: {aspectRatio, imageSize}` from the job's canvas (`imageSize` is "1K", "2K" or
 * "4K"; the pixels per aspect and size are Google's Gemini 3 image table, which the cards copy).
 * The image comes back inline, as a base64 `inlineData` part of the candidate; parts marked
 * `thought: true` are the model's interim drafts and are not outputs.
 *
 * Understanding: the media parts (images inline; a video inline or through the Files API, see
 * files.ts) then the prompt, with `mediaResolution` from `detail`, `responseMimeType:
 * application/json` for JSON answers, `temperature` and `maxOutputTokens`.
 *
 * Verdicts read from the answer (kept at submit, reported by poll):
 *  - `promptFeedback.blockReason` (SAFETY, BLOCKLIST, PROHIBITED_CONTENT, IMAGE_SAFETY, MODEL_ARMOR,
 *    OTHER): the prompt was refused before any generation → safety_rejected.
 *  - finishReason SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_SAFETY,
 *    IMAGE_PROHIBITED_CONTENT, IMAGE_RECITATION: Google's filters withheld what the model made
 *    (recitation is the copyright filter) → content_filtered.
 *  - An image job whose candidate ends STOP, NO_IMAGE or IMAGE_OTHER without an image: the image
 *    models answer a refusal in words and stop; NO_IMAGE / IMAGE_OTHER are Google's own "no image
 *    was made" → content_filtered (refunded, never retried elsewhere).
 *  - Anything else without an output (MAX_TOKENS, MALFORMED_RESPONSE, no finishReason at all, …)
 *    is not a safety outcome: fetchResult refuses it as model_output_invalid.
 */
import { probeMedia } from "../../media/probe";
import type { ProviderContext } from "../adapter";
import type { ImageCapability, ImageRequest, JobFor, JobInput } from "../jobs";
import type { ProviderOutput, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { type Answer, fromBase64, generateOnce, timeoutFor } from "./client";
import { contentPart, deleteFiles, type UploadedFile } from "./files";
import type { Verdict } from "./staging";

const IMAGE_TIMEOUT_MS = 300_000;
const UNDERSTANDING_TIMEOUT_MS = 600_000;

/** The aspect ratios Gemini 3 image models take in imageConfig. */
export const IMAGE_ASPECTS = ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"];
const IMAGE_SIZES = ["1K", "2K", "4K"];

export const SAFETY_FINISH = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);
/** Finish reasons of an image job that mean the model chose not to draw. */
const NO_IMAGE_FINISH = new Set(["STOP", "NO_IMAGE", "IMAGE_OTHER"]);

function ratio(aspect: string): number {
  const [w, h] = aspect.split(":").map(Number) as [number, number];
  return w / h;
}

/** The canvas's aspect when Gemini lists it, else the listed one nearest the resolved pixels. */
export function aspectFor(request: ImageRequest): string {
  const asked = request.canvas?.type === "preset" ? request.canvas.aspect : undefined;
  if (asked && IMAGE_ASPECTS.includes(asked)) return asked;
  const target = Math.log(request.dimensions.width / request.dimensions.height);
  let best = "1:1";
  for (const a of IMAGE_ASPECTS) if (Math.abs(Math.log(ratio(a)) - target) < Math.abs(Math.log(ratio(best)) - target)) best = a;
  return best;
}

/** The canvas's tier, else the tier of the resolved pixels (as the service prices it). */
export function sizeFor(request: ImageRequest): string {
  const tier = request.canvas?.type === "preset" ? request.canvas.tier.toUpperCase() : "";
  if (IMAGE_SIZES.includes(tier)) return tier;
  const mp = (request.dimensions.width * request.dimensions.height) / 1_000_000;
  return mp <= 1.3 ? "1K" : mp <= 4.5 ? "2K" : "4K";
}

/** `reasoning` as a thinking level, only where the card offers it as a real choice (true = high, false = minimal). */
function thinkingFor(job: JobFor<ImageCapability>): Record<string, unknown> {
  const reasoning = job.request.reasoning;
  if (typeof reasoning !== "boolean") return {};
  const control = job.card.controls.find((c) => c.field === "reasoning");
  const toggle = !control?.allowed_values || (control.allowed_values as unknown[]).includes(false);
  return toggle ? { thinkingConfig: { thinkingLevel: reasoning ? "high" : "minimal" } } : {};
}

function imagesOf(job: { inputs: JobInput[] }): JobInput[] {
  return job.inputs.filter((i) => i.kind === "image");
}

export async function imageBody(job: JobFor<ImageCapability>, ctx: ProviderContext, uploaded: UploadedFile[]) {
  const parts: Record<string, unknown>[] = [{ text: job.request.prompt }];
  if (job.capability !== "text_to_image") for (const input of imagesOf(job)) parts.push(await contentPart(ctx, input, uploaded));
  return {
    contents: [{ role: "user", parts }],
    generationConfig: {
      responseModalities: ["TEXT", "IMAGE"],
      imageConfig: { aspectRatio: aspectFor(job.request), imageSize: sizeFor(job.request) },
      ...thinkingFor(job),
    },
  };
}

type UnderstandingJob = JobFor<"image_to_text" | "video_to_text">;

const RESOLUTION: Record<string, string> = {
  low: "MEDIA_RESOLUTION_LOW",
  auto: "MEDIA_RESOLUTION_MEDIUM",
  medium: "MEDIA_RESOLUTION_MEDIUM",
  high: "MEDIA_RESOLUTION_HIGH",
};

export async function understandingBody(job: UnderstandingJob, ctx: ProviderContext, uploaded: UploadedFile[]) {
  const r = job.request;
  const media = job.inputs.filter((i) => (job.capability === "video_to_text" ? i.kind === "video" : i.kind === "image"));
  const parts: Record<string, unknown>[] = [];
  // Google's guidance: the media first, then the question about it.
  for (const input of media) parts.push(await contentPart(ctx, input, uploaded));
  parts.push({ text: r.prompt });
  const resolution = RESOLUTION[r.detail];
  return {
    contents: [{ role: "user", parts }],
    generationConfig: {
      ...(typeof r.temperature === "number" ? { temperature: r.temperature } : {}),
      ...(typeof r.max_output_tokens === "number" ? { maxOutputTokens: r.max_output_tokens } : {}),
      ...(r.response_format === "json" ? { responseMimeType: "application/json" } : {}),
      ...(resolution ? { mediaResolution: resolution } : {}),
    },
  };
}

/** Runs one generateContent for a media job; uploaded files are removed once the answer is in. */
export async function submitContent(job: JobFor<ImageCapability> | UnderstandingJob, ctx: ProviderContext): Promise<Answer> {
  const uploaded: UploadedFile[] = [];
  try {
    const image = job.capability === "text_to_image" || job.capability === "image_to_image" || job.capability === "image_edit";
    const body = image
      ? await imageBody(job as JobFor<ImageCapability>, ctx, uploaded)
      : await understandingBody(job as UnderstandingJob, ctx, uploaded);
    const timeout = timeoutFor(ctx.config, image ? IMAGE_TIMEOUT_MS : UNDERSTANDING_TIMEOUT_MS);
    return await generateOnce(ctx, job.upstream_model, body, timeout);
  } finally {
    if (uploaded.length > 0) await deleteFiles(ctx, uploaded);
  }
}

// ---------------------------------------------------------------- answers

interface Part {
  text?: unknown;
  thought?: unknown;
  inlineData?: { mimeType?: unknown; data?: unknown };
}

interface Candidate {
  content?: { parts?: unknown };
  finishReason?: unknown;
  finishMessage?: unknown;
}

export interface GenerateAnswer {
  candidates?: unknown;
  promptFeedback?: { blockReason?: unknown; blockReasonMessage?: unknown };
  usageMetadata?: Record<string, unknown>;
  modelVersion?: unknown;
  responseId?: unknown;
}

export function parseAnswer(body: Uint8Array): GenerateAnswer | null {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as GenerateAnswer) : null;
  } catch {
    return null;
  }
}

function candidates(answer: GenerateAnswer | null): Candidate[] {
  const list = answer?.candidates;
  return Array.isArray(list) ? list.filter((c): c is Candidate => !!c && typeof c === "object") : [];
}

function partsOf(c: Candidate | undefined): Part[] {
  const parts = c?.content?.parts;
  return Array.isArray(parts) ? parts.filter((p): p is Part => !!p && typeof p === "object") : [];
}

const word = (v: unknown) => (typeof v === "string" && /^[A-Z_]{1,40}$/.test(v) ? v : undefined);
const said = (v: unknown) => (typeof v === "string" && v.trim() ? `: ${v.trim().slice(0, 300)}` : "");

function imageParts(c: Candidate | undefined): Part[] {
  return partsOf(c).filter((p) => p.thought !== true && p.inlineData && typeof p.inlineData === "object");
}

function textOf(c: Candidate | undefined): string {
  return partsOf(c)
    .filter((p) => p.thought !== true && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("");
}

/** The final verdict an answer carries, or null when it is (apparently) a result. */
export function verdictOf(body: Uint8Array, image: boolean): Verdict | null {
  const answer = parseAnswer(body);
  if (!answer) return null;
  const blocked = word(answer.promptFeedback?.blockReason);
  if (blocked && blocked !== "BLOCKED_REASON_UNSPECIFIED") {
    return {
      outcome: "safety_rejected",
      message: `google refused the prompt (blockReason ${blocked})${said(answer.promptFeedback?.blockReasonMessage)}.`,
    };
  }
  const first = candidates(answer)[0];
  const finish = word(first?.finishReason);
  if (finish && SAFETY_FINISH.has(finish)) {
    return {
      outcome: "content_filtered",
      message: `google withheld the output (finishReason ${finish})${said(first?.finishMessage)}.`,
    };
  }
  if (image && first && finish && NO_IMAGE_FINISH.has(finish) && imageParts(first).length === 0) {
    const words = textOf(first).trim();
    return {
      outcome: "content_filtered",
      message: `google made no image (finishReason ${finish})${words ? `: ${words.slice(0, 300)}` : ""}.`,
    };
  }
  return null;
}

function invalid(what: string): ProviderError {
  return new ProviderError("model_output_invalid", `google sent an unusable answer: ${what}.`);
}

const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/**
 * usageMetadata as the service's meters, each token counted once: Google's promptTokenCount
 * includes the cached tokens (cachedContentTokenCount), which are billed at their own price;
 * thoughtsTokenCount is reported apart from candidatesTokenCount, as reasoning.
 */
export function tokenUsage(u: Record<string, unknown> | undefined): Record<string, number> {
  const prompt = count(u?.promptTokenCount) + count(u?.toolUsePromptTokenCount);
  const cached = Math.min(prompt, count(u?.cachedContentTokenCount));
  const output = count(u?.candidatesTokenCount);
  const reasoning = count(u?.thoughtsTokenCount);
  return {
    input_tokens: prompt - cached,
    output_tokens: output,
    ...(cached > 0 ? { cache_read_tokens: cached } : {}),
    ...(reasoning > 0 ? { reasoning_tokens: reasoning } : {}),
  };
}

function metadataOf(answer: GenerateAnswer, job: { upstream_model: string }, finish?: string): Record<string, unknown> {
  return {
    provider: "google",
    model: typeof answer.modelVersion === "string" ? answer.modelVersion.slice(0, 100) : job.upstream_model,
    ...(typeof answer.responseId === "string" ? { response_id: answer.responseId.slice(0, 128) } : {}),
    ...(finish ? { finish_reason: finish } : {}),
  };
}

/** The staged image answer as outputs; anything missing or undecodable throws model_output_invalid. */
export function imageResult(body: Uint8Array, job: JobFor<ImageCapability>): ProviderResult {
  const answer = parseAnswer(body);
  if (!answer) throw invalid("the body is not a JSON object");
  const first = candidates(answer)[0];
  if (!first) throw invalid("no candidates");
  const found = imageParts(first).slice(0, Math.max(1, job.request.count));
  if (found.length === 0) throw invalid(`no image part (finishReason ${word(first.finishReason) ?? "missing"})`);
  const outputs: ProviderOutput[] = found.map((part, index) => {
    const data = part.inlineData?.data;
    if (typeof data !== "string" || data.length === 0) throw invalid(`image ${index} has no data`);
    let bytes: Uint8Array;
    try {
      bytes = fromBase64(data);
    } catch {
      throw invalid(`image ${index} is not valid base64`);
    }
    let probed: ReturnType<typeof probeMedia>;
    try {
      probed = probeMedia(bytes, `/candidates/0/content/parts/${index}`);
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
  const text = textOf(first).trim();
  return {
    outputs,
    usage: tokenUsage(answer.usageMetadata),
    metadata: { ...metadataOf(answer, job, word(first.finishReason)), ...(text ? { model_text: text.slice(0, 2000) } : {}) },
  };
}

/** The staged understanding answer as text with token usage (and, for video, the seconds read). */
export function understandingResult(body: Uint8Array, job: UnderstandingJob): ProviderResult {
  const answer = parseAnswer(body);
  if (!answer) throw invalid("the body is not a JSON object");
  const first = candidates(answer)[0];
  if (!first) throw invalid("no candidates");
  const text = textOf(first);
  if (text.trim().length === 0) throw invalid(`no text (finishReason ${word(first.finishReason) ?? "missing"})`);
  const usage = tokenUsage(answer.usageMetadata);
  if (job.capability === "video_to_text") {
    const video = job.inputs.find((i) => i.kind === "video");
    usage.input_video_seconds = Math.max(1, Math.ceil(video?.duration_seconds ?? 1));
  }
  return { outputs: [], text, usage, metadata: metadataOf(answer, job, word(first.finishReason)) };
}
