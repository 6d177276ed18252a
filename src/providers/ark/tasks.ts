/**
 * Seedance video generation through Ark's content generation tasks (BytePlus "Video Generation API",
 * Volcengine "视频生成 API", and the official SDK's `content_generation.tasks`):
 *   create  POST   /contents/generations/tasks        `{model, content[], resolution, ratio, duration, …}` → `{id}`
 *   get     GET    /contents/generations/tasks/{id}   the task: status, error, content.video_url, usage
 *   cancel  DELETE /contents/generations/tasks/{id}   a queued task becomes `cancelled`; a running one
 *                                                     cannot be touched; a finished one is *deleted*
 * `content` carries the prompt as `{type: "text"}` and media as `{type: "image_url" | "video_url" |
 * "audio_url", <type>: {url}, role}` with roles first_frame, last_frame, reference_image,
 * reference_video and reference_audio. Media goes as short-lived signed URLs served by this
 * service, never the client's own URL. Parameters are top-level fields, as the SDK sends them (the
 * older `--rs 720p` text commands are not used).
 */

import type { ProviderContext } from "../adapter";
import type { ProviderConfig } from "../config";
import { malformed, readJson } from "../http";
import type { JobFor, JobInput, VideoCapability } from "../jobs";
import type { ProviderOutput, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { arkCall } from "./client";

export const TASKS_PATH = "/contents/generations/tasks";

export interface ArkTask {
  id: string;
  status: string;
  model?: unknown;
  error?: unknown;
  content?: { video_url?: unknown; last_frame_url?: unknown } | null;
  usage?: { completion_tokens?: unknown; total_tokens?: unknown } | null;
  created_at?: unknown;
  updated_at?: unknown;
  seed?: unknown;
  resolution?: unknown;
  ratio?: unknown;
  duration?: unknown;
  framespersecond?: unknown;
  generate_audio?: unknown;
}

type Item = Record<string, unknown>;

const TYPE_OF = { image: "image_url", video: "video_url", audio: "audio_url" } as const;
const REFERENCE_ROLE = { image: "reference_image", video: "reference_video", audio: "reference_audio" } as const;

/** The Ark role an input plays, from the body field that carried it. */
export function roleOf(input: JobInput): string {
  if (input.kind === "image" && (input.field === "image" || input.field === "first_frame")) return "first_frame";
  if (input.kind === "image" && input.field === "last_frame") return "last_frame";
  return REFERENCE_ROLE[input.kind];
}

/**
 * Inputs in the order Ark numbers them: frames first, then the video being extended (so that the
 * prompt's `<Video 1>` is the source), then every reference in the client's order.
 */
function ordered(inputs: JobInput[]): JobInput[] {
  const rank = (i: JobInput) => {
    const role = roleOf(i);
    if (role === "first_frame") return 0;
    if (role === "last_frame") return 1;
    if (i.field === "video") return 2;
    return 3;
  };
  return inputs
    .map((input, n) => ({ input, n }))
    .sort((a, b) => rank(a.input) - rank(b.input) || a.n - b.n)
    .map((x) => x.input);
}

/**
 * The text of an extension. Seedance 2.0 has no extension field: the reference-to-video model reads
 * the task from the prompt, "Extend <Video 1>, …" (the canonical wording hosts document for it).
 */
export function extensionPrompt(prompt: string, direction: "before" | "after" | undefined): string {
  const lead =
    direction === "before" ? "Extend <Video 1> backward, generating what happens before it" : "Extend <Video 1> forward";
  return prompt.trim() ? `${lead}: ${prompt.trim()}` : `${lead}.`;
}

/**
 * Seconds to generate. An extension's `duration` is the final length (source plus continuation),
 * while Ark's `duration` is what the model makes: the continuation.
 */
export function generatedSeconds(job: JobFor<VideoCapability>): number {
  const r = job.request;
  if (job.capability !== "video_extend") return r.duration;
  const source = r.source_duration ?? job.inputs.find((i) => i.field === "video")?.duration_seconds ?? 0;
  return Math.max(1, Math.ceil(r.duration - source));
}

function hasControl(job: JobFor<VideoCapability>, field: string): boolean {
  const controls = (job.card as { controls?: { field?: unknown }[] }).controls;
  return Array.isArray(controls) && controls.some((c) => c?.field === field);
}

/** The create body for a video job. */
export async function taskBody(job: JobFor<VideoCapability>, ctx: ProviderContext): Promise<Record<string, unknown>> {
  const r = job.request;
  const content: Item[] = [];
  const text = job.capability === "video_extend" ? extensionPrompt(r.prompt, r.direction) : r.prompt;
  // The prompt is optional when an image anchors the video.
  if (text.trim()) content.push({ type: "text", text });
  for (const input of ordered(job.inputs)) {
    const type = TYPE_OF[input.kind];
    content.push({ type, [type]: { url: await ctx.inputs.url(input) }, role: roleOf(input) });
  }
  if (content.length === 0) {
    throw new ProviderError("invalid_request", `${ctx.config.name}: the job has neither a prompt nor media.`, { accepted: "no" });
  }
  const body: Record<string, unknown> = {
    model: job.upstream_model,
    content,
    resolution: r.resolution,
    duration: generatedSeconds(job),
    watermark: r.watermark,
  };
  // A card without an aspect-ratio control leaves the frame to the inputs (Ark's `adaptive`),
  // rather than the request's default, which would crop an opening image to 16:9.
  body.ratio = hasControl(job, "aspect_ratio") ? r.aspect_ratio : "adaptive";
  if (typeof r.seed === "number") body.seed = r.seed;
  // Only models with native audio take the switch; others may refuse the unknown field.
  if (hasControl(job, "generate_audio")) body.generate_audio = r.generate_audio;
  if (r.return_last_frame) body.return_last_frame = true;
  if (r.web_search) body.tools = [{ type: "web_search" }];
  return body;
}

/** An answer after Ark took the submission (2xx) that cannot be read: the task may be running. */
function unreadableAcceptance(config: ProviderConfig, what: string): ProviderError {
  return new ProviderError("model_request_failed", `${config.name} accepted the task but its answer ${what}.`, {
    retryable: true,
    accepted: "unknown",
  });
}

/** Creates the task and returns its id at once; never repeated here (the task object decides). */
export async function createTask(config: ProviderConfig, body: Record<string, unknown>): Promise<string> {
  const res = await arkCall(config, { method: "POST", path: TASKS_PATH, json: body, retries: 0 });
  let answer: unknown;
  try {
    answer = JSON.parse(await res.text());
  } catch {
    throw unreadableAcceptance(config, "is not JSON");
  }
  const id = (answer as { id?: unknown } | null)?.id;
  if (typeof id !== "string" || id.length === 0 || id.length > 200) throw unreadableAcceptance(config, "has no task id");
  return id;
}

const taskPath = (id: string) => `${TASKS_PATH}/${encodeURIComponent(id)}`;

export function asTask(config: ProviderConfig, body: unknown): ArkTask {
  if (!body || typeof body !== "object") throw malformed(config, "the task is not an object");
  const t = body as Record<string, unknown>;
  if (typeof t.id !== "string" || typeof t.status !== "string") throw malformed(config, "the task has no id or status");
  return t as unknown as ArkTask;
}

/** Reads a task (safe to repeat); null when Ark no longer has it (tasks are kept 7 days). */
export async function getTask(config: ProviderConfig, id: string): Promise<ArkTask | null> {
  const res = await arkCall(config, { method: "GET", path: taskPath(id), retries: 2, accept: [404] });
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  return asTask(config, await readJson(config, res));
}

/**
 * Cancels a task that is still queued. DELETE is only sent to a task just read as `queued`: on a
 * finished task it would delete the record (and the output with it), and a running one cannot be
 * cancelled. Ark's refusal (the task started in between) is an answer, not a failure.
 */
export async function cancelTask(config: ProviderConfig, id: string): Promise<"canceled" | "not_cancelable"> {
  const task = await getTask(config, id);
  if (task?.status !== "queued") return "not_cancelable";
  const res = await arkCall(config, { method: "DELETE", path: taskPath(id), retries: 2, accept: [400, 403, 404, 409] });
  await res.body?.cancel();
  return res.status >= 200 && res.status < 300 ? "canceled" : "not_cancelable";
}

function httpUrl(value: unknown): string | null {
  return typeof value === "string" && /^https?:\/\//i.test(value) ? value : null;
}

/** Whether a succeeded task carries its documented output. */
export function hasVideo(task: ArkTask): boolean {
  return httpUrl(task.content?.video_url) !== null;
}

/**
 * A succeeded task as the service's result: the video, and the last frame when it was asked for.
 * Both URLs expire after 24 hours; the service copies them before it reports success. Usage is
 * Ark's `completion_tokens` (its billing unit); seconds are measured from the stored video.
 */
export function taskResult(config: ProviderConfig, task: ArkTask): ProviderResult {
  if (task.status !== "succeeded") {
    throw new ProviderError(
      "model_request_failed",
      `${config.name}: the task is "${task.status.slice(0, 32)}", it has no result.`,
      {
        retryable: true,
      },
    );
  }
  const video = httpUrl(task.content?.video_url);
  if (!video) throw malformed(config, "a succeeded task without content.video_url");
  const outputs: ProviderOutput[] = [{ kind: "video", url: video, index: 0 }];
  const frame = httpUrl(task.content?.last_frame_url);
  if (frame) outputs.push({ kind: "image", url: frame, index: 1 });
  const usage: Record<string, number> = {};
  const tokens = task.usage?.completion_tokens;
  if (typeof tokens === "number" && Number.isFinite(tokens) && tokens >= 0) usage.output_tokens = Math.floor(tokens);
  const metadata: Record<string, unknown> = {};
  for (const k of ["seed", "resolution", "ratio", "duration", "framespersecond", "generate_audio"] as const) {
    const v = task[k];
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") metadata[k] = v;
  }
  return { outputs, usage, metadata };
}
