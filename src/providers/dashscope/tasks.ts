/**
 * Wan video generation as DashScope's asynchronous tasks (Model Studio "Wan text-to-video / image-to-
 * video API reference", and the official Python SDK's VideoSynthesis):
 *   create  POST /services/aigc/video-generation/video-synthesis   header `X-DashScope-Async: enable`,
 *           `{model, input: {prompt, negative_prompt, media[]}, parameters: {…}}` → `output.task_id`
 *   get     GET  /tasks/{task_id}          `output.task_status`, `output.video_url`, `usage`
 *   cancel  POST /tasks/{task_id}/cancel   PENDING tasks only
 * Wan 2.7 and 3.0 take their media as `input.media[]`, `{type, url}` items; the type names the part
 * an item plays (first_frame, last_frame, driving_audio, first_clip; and for 3.0 reference_image,
 * reference_video, reference_audio). Media goes as short-lived signed URLs served by this service.
 */

import type { ProviderContext } from "../adapter";
import type { ProviderConfig } from "../config";
import { malformed, readJson } from "../http";
import type { JobFor, JobInput, VideoCapability } from "../jobs";
import type { ProviderOutput, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { dashscopeCall } from "./client";

export const SYNTHESIS_PATH = "/services/aigc/video-generation/video-synthesis";

export interface DashScopeTask {
  task_id: string;
  task_status: string;
  video_url?: unknown;
  code?: unknown;
  message?: unknown;
  submit_time?: unknown;
  scheduled_time?: unknown;
  end_time?: unknown;
  orig_prompt?: unknown;
  actual_prompt?: unknown;
  usage?: Record<string, unknown> | null;
}

/** The model id for the job: the card names it per capability (`wan2.7-t2v`, `wan2.7-i2v`, `wan3.0-video`). */
export function modelFor(job: JobFor<VideoCapability>): string {
  return job.upstream_model;
}

/** One id serves every mode (Wan 3.0): references are typed by kind, frames are frames. */
const isUnified = (model: string) => /^wan3/.test(model);

const REFERENCE_TYPE = { image: "reference_image", video: "reference_video", audio: "reference_audio" } as const;

/** The `media[].type` an input plays, from the body field that carried it. */
export function mediaType(input: JobInput, model: string): string {
  if (input.kind === "image" && (input.field === "image" || input.field === "first_frame")) return "first_frame";
  if (input.kind === "image" && input.field === "last_frame") return "last_frame";
  if (input.kind === "video" && input.field === "video") return "first_clip";
  if (input.kind === "audio" && !isUnified(model) && input.field !== "references") return "driving_audio";
  return REFERENCE_TYPE[input.kind];
}

const RANK: Record<string, number> = { first_clip: 0, first_frame: 1, last_frame: 2, driving_audio: 3 };

/** Frames and the clip first; references keep the client's order (it numbers them in the prompt). */
function ordered(inputs: JobInput[], model: string): JobInput[] {
  return inputs
    .map((input, n) => ({ input, n, rank: RANK[mediaType(input, model)] ?? 4 }))
    .sort((a, b) => a.rank - b.rank || a.n - b.n)
    .map((x) => x.input);
}

function hasControl(job: JobFor<VideoCapability>, field: string): boolean {
  const controls = (job.card as { controls?: { field?: unknown }[] }).controls;
  return Array.isArray(controls) && controls.some((c) => c?.field === field);
}

/** `720p` → `720P`, the form DashScope documents. */
const tier = (resolution: string) => resolution.replace(/p$/i, "P");

const REFERENCE_SECONDS = 15;
const WAN3_TOTAL_SECONDS = 30;

/**
 * Wan 3.0's per-request totals (reference videos together ≤ 15 s, reference audio together ≤ 15 s,
 * reference video time plus the output ≤ 30 s), which a card cannot express per input.
 */
function checkTotals(job: JobFor<VideoCapability>, model: string, config: ProviderConfig): void {
  if (!isUnified(model)) return;
  const seconds = (kind: JobInput["kind"]) =>
    job.inputs.filter((i) => i.field === "references" && i.kind === kind).reduce((s, i) => s + (i.duration_seconds ?? 0), 0);
  const video = seconds("video");
  const audio = seconds("audio");
  const refuse = (why: string) => new ProviderError("invalid_request", `${config.name}: ${why}`, { accepted: "no" });
  if (video > REFERENCE_SECONDS) throw refuse(`reference videos total ${video} s; at most ${REFERENCE_SECONDS} s.`);
  if (audio > REFERENCE_SECONDS) throw refuse(`reference audio totals ${audio} s; at most ${REFERENCE_SECONDS} s.`);
  if (video + job.request.duration > WAN3_TOTAL_SECONDS)
    throw refuse(`reference video time plus the output length exceeds ${WAN3_TOTAL_SECONDS} s.`);
}

/** The create body for a video job. */
export async function taskBody(job: JobFor<VideoCapability>, ctx: ProviderContext): Promise<Record<string, unknown>> {
  const r = job.request;
  const model = modelFor(job);
  checkTotals(job, model, ctx.config);
  const input: Record<string, unknown> = {};
  if (r.prompt.trim()) input.prompt = r.prompt;
  if (r.negative_prompt?.trim()) input.negative_prompt = r.negative_prompt;
  const media: { type: string; url: string }[] = [];
  for (const item of ordered(job.inputs, model)) {
    media.push({ type: mediaType(item, model), url: await ctx.inputs.url(item) });
  }
  if (media.length > 0) input.media = media;
  if (!input.prompt && media.length === 0) {
    throw new ProviderError("invalid_request", `${ctx.config.name}: the job has neither a prompt nor media.`, { accepted: "no" });
  }
  const parameters: Record<string, unknown> = {
    resolution: tier(r.resolution),
    // For an extension this is the final length, first clip included, as the card defines it.
    duration: r.duration,
    watermark: r.watermark,
  };
  // Without the control, the frame follows the input media rather than the request's default.
  if (hasControl(job, "aspect_ratio")) parameters.ratio = r.aspect_ratio;
  // DashScope rewrites prompts by default; the cards send the prompt as written unless asked.
  if (hasControl(job, "enhance_prompt")) parameters.prompt_extend = r.enhance_prompt === true;
  // Only models with native sound take the switch.
  if (hasControl(job, "generate_audio")) parameters.audio = r.generate_audio;
  if (typeof r.seed === "number") parameters.seed = r.seed;
  return { model, input, parameters };
}

/** A 2xx answer to a creation that cannot be read: the task may be running. */
function unreadableAcceptance(config: ProviderConfig, what: string): ProviderError {
  return new ProviderError("model_request_failed", `${config.name} accepted the task but its answer ${what}.`, {
    retryable: true,
    accepted: "unknown",
  });
}

/** Creates the task and returns its id at once; never repeated here (the task object decides). */
export async function createTask(config: ProviderConfig, body: Record<string, unknown>): Promise<string> {
  const res = await dashscopeCall(config, {
    method: "POST",
    path: SYNTHESIS_PATH,
    headers: { "X-DashScope-Async": "enable" },
    json: body,
    retries: 0,
  });
  let answer: unknown;
  try {
    answer = JSON.parse(await res.text());
  } catch {
    throw unreadableAcceptance(config, "is not JSON");
  }
  const id = (answer as { output?: { task_id?: unknown } } | null)?.output?.task_id;
  if (typeof id !== "string" || id.length === 0 || id.length > 200) throw unreadableAcceptance(config, "has no output.task_id");
  return id;
}

const taskPath = (id: string) => `/tasks/${encodeURIComponent(id)}`;

export function asTask(config: ProviderConfig, body: unknown): DashScopeTask {
  const output = (body as { output?: unknown } | null)?.output;
  if (!output || typeof output !== "object") throw malformed(config, "the task answer has no output");
  const t = output as Record<string, unknown>;
  if (typeof t.task_status !== "string" || t.task_status.length === 0) throw malformed(config, "output.task_status is missing");
  const usage = (body as { usage?: unknown }).usage;
  return {
    ...(t as object),
    task_id: typeof t.task_id === "string" ? t.task_id : "",
    task_status: t.task_status,
    usage: usage && typeof usage === "object" ? (usage as Record<string, unknown>) : null,
  } as DashScopeTask;
}

/** Reads a task (safe to repeat). */
export async function getTask(config: ProviderConfig, id: string): Promise<DashScopeTask> {
  const res = await dashscopeCall(config, { method: "GET", path: taskPath(id), retries: 2 });
  return asTask(config, await readJson(config, res));
}

/**
 * Cancels a task. DashScope cancels PENDING tasks only and refuses the others with an error answer,
 * which is an answer here, not a failure; cancelling changes nothing about a finished task.
 */
export async function cancelTask(config: ProviderConfig, id: string): Promise<"canceled" | "not_cancelable"> {
  const res = await dashscopeCall(config, {
    method: "POST",
    path: `${taskPath(id)}/cancel`,
    retries: 2,
    accept: [400, 403, 404, 409],
  });
  await res.body?.cancel();
  return res.status >= 200 && res.status < 300 ? "canceled" : "not_cancelable";
}

function httpUrl(value: unknown): string | null {
  return typeof value === "string" && /^https?:\/\//i.test(value) ? value : null;
}

export function hasVideo(task: DashScopeTask): boolean {
  return httpUrl(task.video_url) !== null;
}

/**
 * A succeeded task as the service's result. `video_url` expires (24 hours); the service copies it
 * before it reports success and measures the seconds from the stored file. DashScope's usage
 * (video_duration, video_count, SR, …) is kept as metadata.
 */
export function taskResult(config: ProviderConfig, task: DashScopeTask): ProviderResult {
  if (task.task_status !== "SUCCEEDED") {
    throw new ProviderError(
      "model_request_failed",
      `${config.name}: the task is "${task.task_status.slice(0, 32)}", it has no result.`,
      { retryable: true },
    );
  }
  const video = httpUrl(task.video_url);
  if (!video) throw malformed(config, "a succeeded task without output.video_url");
  const outputs: ProviderOutput[] = [{ kind: "video", url: video, index: 0 }];
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(task.usage ?? {})) {
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") metadata[`usage_${k}`] = v;
  }
  return { outputs, usage: {}, metadata };
}
