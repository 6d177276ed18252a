/**
 * A DashScope task's `output.task_status` in the service's terms (the task query reference and the
 * SDK's TaskStatus):
 *   PENDING    → queued   (progress creeps up with the wait: DashScope reports no queue position)
 *   SUSPENDED  → queued   (held by the platform; it resumes or fails on its own)
 *   RUNNING    → running  (progress by elapsed time: video tasks report no percentage)
 *   SUCCEEDED  → succeeded, once `output.video_url` is there (without it: a malformed answer, read again)
 *   FAILED     → failed: `output.code` decides (DataInspectionFailed → content_filtered, or
 *                safety_rejected when the message names the input; anything else
 *                model_request_failed with DashScope's words made safe)
 *   CANCELED   → failed, model_request_failed: the service stops polling once it cancels, so a
 *                canceled task seen here was canceled by someone else
 *   UNKNOWN    → documented as "the task does not exist or its status is unknown": still waiting
 *                while the task id can be valid (24 hours), then failed
 *   anything else → still waiting, so that a status added later never ends a task that may finish
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { malformed } from "../http";
import type { PollResult, Progress } from "../types";
import { codeForError, errorOf, safeWording, wordingOf } from "./client";
import { type DashScopeTask, hasVideo } from "./tasks";

/** A typical Wan run (1-5 minutes per the documentation), for progress that moves. */
export const EXPECTED_RUN_MS = 120_000;
/** How long a task id can be queried. */
export const TASK_ID_TTL_MS = 24 * 3600 * 1000;

/** Queued: 0-9 %, one point per five seconds of waiting. */
function queued(config: ProviderConfig, now: number, submittedAt: number, note?: string): Progress {
  const waited = Math.max(0, now - submittedAt);
  return { percent: Math.min(9, Math.floor(waited / 5000)), stage: "queued", message: note ?? `${config.name}: queued` };
}

/** Running: 10-95 %, on a curve of the time since submission that never reaches the end. */
function running(config: ProviderConfig, now: number, submittedAt: number): Progress {
  const elapsed = Math.max(0, now - submittedAt);
  const percent = 10 + 85 * (1 - Math.exp(-elapsed / EXPECTED_RUN_MS));
  return { percent: Math.max(10, Math.min(95, Math.floor(percent))), stage: "generating", message: `${config.name}: generating` };
}

/** Why a failed task failed, in the public vocabulary. */
export function failureOf(config: ProviderConfig, task: DashScopeTask): { code: ErrorCode; message: string } {
  const error = errorOf(task);
  const known = codeForError(error, "task");
  const code =
    known && known.code !== "model_unavailable" && known.code !== "model_rate_limited" ? known.code : "model_request_failed";
  return {
    code,
    message: `${config.name}: ${safeWording(config, wordingOf(error, "the task failed without an error message"))}`,
  };
}

export function pollResult(config: ProviderConfig, task: DashScopeTask, now: number, submittedAt: number): PollResult {
  switch (task.task_status) {
    case "PENDING":
      return { state: "queued", progress: queued(config, now, submittedAt) };
    case "SUSPENDED":
      return { state: "queued", progress: queued(config, now, submittedAt, `${config.name}: suspended`) };
    case "RUNNING":
      return { state: "running", progress: running(config, now, submittedAt) };
    case "SUCCEEDED":
      if (!hasVideo(task)) throw malformed(config, "a succeeded task without output.video_url");
      return { state: "succeeded" };
    case "FAILED":
      return { state: "failed", error: failureOf(config, task) };
    case "CANCELED":
      return {
        state: "failed",
        error: { code: "model_request_failed", message: `${config.name}: the task was canceled upstream (not by this service).` },
      };
    case "UNKNOWN":
      if (now - submittedAt > TASK_ID_TTL_MS) {
        return {
          state: "failed",
          error: {
            code: "model_request_failed",
            message: `${config.name}: the task no longer exists upstream (task ids last 24 hours).`,
          },
        };
      }
      return { state: "running", progress: queued(config, now, submittedAt, `${config.name}: status unknown`) };
    default: {
      const word = task.task_status.replace(/[^a-z0-9_ -]/gi, "").slice(0, 32);
      // On the queued curve: progress must not jump ahead and come back.
      return { state: "running", progress: queued(config, now, submittedAt, `${config.name}: status "${word}"`) };
    }
  }
}
