/**
 * Hailuo video through MiniMax's v1 video API (platform.minimax.io video generation; MiniMax-MCP
 * `generate_video` / `query_video_generation`):
 *   create  POST /v1/video_generation                      `{model, prompt, duration, resolution,
 *           first_frame_image, last_frame_image, prompt_optimizer}` → `{task_id, base_resp}`
 *   query   GET  /v1/query/video_generation?task_id=       `{task_id, status, file_id, video_width,
 *           video_height, base_resp}`
 *   file    GET  /v1/files/retrieve?file_id=               `{file: {file_id, bytes, filename,
 *           download_url}, base_resp}`; the link expires (the service copies it at once)
 * Statuses (query): Preparing, Queueing → queued; Processing → running; Success → succeeded (with
 * file_id); Fail (the v1 reference, the MCP server) or Failed (the official CLI's reading) → failed,
 * with base_resp 1026/1027 as the safety outcomes; anything else (Unknown among them) → still running. MiniMax reports no percentage: progress follows the elapsed time. There is no cancel
 * endpoint. Frames go as short-lived signed URLs served by this service.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderContext } from "../adapter";
import type { ProviderConfig } from "../config";
import { malformed } from "../http";
import type { JobFor, VideoCapability } from "../jobs";
import type { PollResult, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { baseRespError, baseRespOf, codeForStatusCode, httpUrl, minimaxCall, readBody, wordingOf } from "./client";

export const CREATE_PATH = "/v1/video_generation";
export const QUERY_PATH = "/v1/query/video_generation";
export const FILE_PATH = "/v1/files/retrieve";
/** A typical Hailuo run, for progress that moves while MiniMax reports none. */
export const EXPECTED_RUN_MS = 120_000;

export async function videoBody(job: JobFor<VideoCapability>, ctx: ProviderContext): Promise<Record<string, unknown>> {
  const r = job.request;
  const body: Record<string, unknown> = {
    model: job.upstream_model,
    prompt: r.prompt,
    duration: r.duration,
    resolution: r.resolution.toUpperCase(),
  };
  if (typeof r.enhance_prompt === "boolean") body.prompt_optimizer = r.enhance_prompt;
  for (const input of job.inputs) {
    const field =
      input.kind === "image" && (input.field === "image" || input.field === "first_frame")
        ? "first_frame_image"
        : input.kind === "image" && input.field === "last_frame"
          ? "last_frame_image"
          : null;
    if (!field) {
      throw new ProviderError(
        "unsupported_option",
        `${ctx.config.name}: input "${input.field}" is not taken by the v1 video API.`,
        {
          accepted: "no",
        },
      );
    }
    body[field] = await ctx.inputs.url(input);
  }
  return body;
}

/** Reads a 2xx answer's JSON and its base_resp; a non-zero base_resp is thrown as its error. */
async function answerOf(config: ProviderConfig, res: Response): Promise<Record<string, unknown>> {
  const { json } = await readBody(res);
  if (!json || typeof json !== "object" || Array.isArray(json)) throw malformed(config, "the body is not a JSON object");
  return json as Record<string, unknown>;
}

/** Creates the task and returns its id at once; never repeated here (the task object decides). */
export async function createVideo(config: ProviderConfig, body: Record<string, unknown>): Promise<string> {
  const res = await minimaxCall(config, { method: "POST", path: CREATE_PATH, json: body, retries: 0 });
  let answer: Record<string, unknown> | null = null;
  try {
    const { json } = await readBody(res);
    answer = json && typeof json === "object" ? (json as Record<string, unknown>) : null;
  } catch {}
  const base = baseRespOf(answer);
  if (base && base.status_code !== 0) throw baseRespError(config, base, res.headers);
  const id = answer?.task_id;
  if ((typeof id === "string" && id.length > 0 && id.length <= 200) || (typeof id === "number" && Number.isFinite(id)))
    return String(id);
  throw new ProviderError("model_request_failed", `${config.name} accepted the task but its answer has no task_id.`, {
    retryable: true,
    accepted: "unknown",
  });
}

export interface VideoTask {
  status: string;
  file_id?: string;
  base: { status_code: number; status_msg: string } | null;
  width?: number;
  height?: number;
}

export async function queryVideo(config: ProviderConfig, taskId: string): Promise<VideoTask> {
  const res = await minimaxCall(config, {
    method: "GET",
    path: `${QUERY_PATH}?task_id=${encodeURIComponent(taskId)}`,
    retries: 2,
  });
  const answer = await answerOf(config, res);
  const base = baseRespOf(answer);
  const status = answer.status;
  // A failed read (throttled, auth) carries no status: it is the read that failed, not the task.
  if (typeof status !== "string" || status.length === 0) {
    if (base && base.status_code !== 0) throw baseRespError(config, base, res.headers);
    throw malformed(config, "the task has no status");
  }
  const fileId = answer.file_id;
  return {
    status,
    base,
    ...((typeof fileId === "string" && fileId) || typeof fileId === "number" ? { file_id: String(fileId) } : {}),
    ...(typeof answer.video_width === "number" ? { width: answer.video_width } : {}),
    ...(typeof answer.video_height === "number" ? { height: answer.video_height } : {}),
  };
}

function queuedProgress(config: ProviderConfig, now: number, submittedAt: number, note?: string) {
  const waited = Math.max(0, now - submittedAt);
  return { percent: Math.min(9, 1 + Math.floor(waited / 5000)), stage: "queued", message: note ?? `${config.name}: queued` };
}

export function failureOf(config: ProviderConfig, task: VideoTask): { code: ErrorCode; message: string } {
  const base = task.base;
  if (base && base.status_code !== 0) {
    const known = codeForStatusCode(base.status_code);
    const code: ErrorCode =
      known.code === "safety_rejected" || known.code === "content_filtered" ? known.code : "model_request_failed";
    return { code, message: wordingOf(config, base) };
  }
  // A failure with base_resp 0 may still say why in status_msg (the CLI shows it as "Task Failed: …").
  const said = base?.status_msg && !/^success$/i.test(base.status_msg) ? base.status_msg : "";
  if (base && said) return { code: "model_request_failed", message: wordingOf(config, base) };
  return { code: "model_request_failed", message: `${config.name}: the video task failed without an error message.` };
}

export function pollVideo(config: ProviderConfig, task: VideoTask, now: number, submittedAt: number): PollResult {
  switch (task.status) {
    case "Preparing":
    case "Queueing":
      return {
        state: "queued",
        progress: queuedProgress(config, now, submittedAt, `${config.name}: ${task.status.toLowerCase()}`),
      };
    case "Processing": {
      const elapsed = Math.max(0, now - submittedAt);
      const percent = 10 + 85 * (1 - Math.exp(-elapsed / EXPECTED_RUN_MS));
      return {
        state: "running",
        progress: {
          percent: Math.max(10, Math.min(95, Math.floor(percent))),
          stage: "generating",
          message: `${config.name}: generating`,
        },
      };
    }
    case "Success":
      if (!task.file_id) throw malformed(config, "a succeeded task without file_id");
      return { state: "succeeded" };
    case "Fail":
    case "Failed":
      return { state: "failed", error: failureOf(config, task) };
    default: {
      const word = task.status.replace(/[^A-Za-z0-9_ -]/g, "").slice(0, 32);
      // Still waiting, on the queued curve: progress must not jump ahead and come back.
      return { state: "running", progress: queuedProgress(config, now, submittedAt, `${config.name}: status "${word}"`) };
    }
  }
}

export async function videoResult(config: ProviderConfig, taskId: string): Promise<ProviderResult> {
  const task = await queryVideo(config, taskId);
  if (task.status !== "Success") {
    throw new ProviderError(
      "model_request_failed",
      `${config.name}: the task is "${task.status.slice(0, 32)}", it has no result.`,
      {
        retryable: true,
      },
    );
  }
  if (!task.file_id) throw malformed(config, "a succeeded task without file_id");
  const res = await minimaxCall(config, {
    method: "GET",
    path: `${FILE_PATH}?file_id=${encodeURIComponent(task.file_id)}`,
    retries: 2,
  });
  const answer = await answerOf(config, res);
  const base = baseRespOf(answer);
  if (base && base.status_code !== 0) throw baseRespError(config, base, res.headers);
  const url = httpUrl((answer.file as { download_url?: unknown } | undefined)?.download_url);
  if (!url) throw malformed(config, "the file has no download_url");
  const metadata: Record<string, unknown> = { file_id: task.file_id };
  if (task.width) metadata.video_width = task.width;
  if (task.height) metadata.video_height = task.height;
  return { outputs: [{ kind: "video", url, index: 0 }], usage: {}, metadata };
}
