/**
 * A content generation task's status in the service's terms. Ark documents (query task API, and the
 * cancel page's table):
 *   queued     → queued   (progress creeps up with the wait: Ark reports no queue position)
 *   running    → running  (progress by elapsed time since `updated_at`, when the status last changed:
 *                          Ark reports no percentage)
 *   succeeded  → succeeded, once `content.video_url` is there (a succeeded task without it is a
 *                malformed answer, read again)
 *   failed     → failed: `error.code` decides: Input…/Output…SensitiveContentDetected and the risk
 *                detection codes are safety outcomes (safety_rejected / content_filtered); anything
 *                else is model_request_failed with Ark's words made safe
 *   cancelled  → failed, model_request_failed: the service stops polling once it cancels, so a
 *                cancelled task seen here was cancelled by someone else
 *   expired    → failed, model_timeout: the task outlived its `execution_expires_after`
 *   anything else → running, so that a status added later never ends a task that may still finish
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { malformed } from "../http";
import type { PollResult, Progress } from "../types";
import { arkError, codeForArkError, safeWording, wordingOf } from "./client";
import { type ArkTask, hasVideo } from "./tasks";

/** A typical Seedance run, for progress that moves while Ark reports none. */
export const EXPECTED_RUN_MS = 90_000;

function at(seconds: unknown, fallback: number): number {
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : fallback;
}

/** Queued: 0-9 %, one point per five seconds of waiting, so that a long queue still shows movement. */
function queued(config: ProviderConfig, task: ArkTask, now: number, submittedAt: number, note?: string): Progress {
  const waited = Math.max(0, now - at(task.created_at, submittedAt));
  return {
    percent: Math.min(9, Math.floor(waited / 5000)),
    stage: "queued",
    message: note ?? `${config.name}: queued`,
  };
}

/** Running: 10-95 %, on a curve of the elapsed time that never reaches the end. */
function running(config: ProviderConfig, task: ArkTask, now: number, submittedAt: number): Progress {
  const started = at(task.updated_at, at(task.created_at, submittedAt));
  const elapsed = Math.max(0, now - started);
  const percent = 10 + 85 * (1 - Math.exp(-elapsed / EXPECTED_RUN_MS));
  return { percent: Math.max(10, Math.min(95, Math.floor(percent))), stage: "generating", message: `${config.name}: generating` };
}

/** Why a failed task failed, in the public vocabulary. */
export function failureOf(config: ProviderConfig, task: ArkTask): { code: ErrorCode; message: string } {
  const error = arkError(task.error);
  const known = codeForArkError(error);
  const code = known && known.code !== "model_unavailable" ? known.code : "model_request_failed";
  return {
    code,
    message: `${config.name}: ${safeWording(config, wordingOf(error, "the task failed without an error message"))}`,
  };
}

export function pollResult(config: ProviderConfig, task: ArkTask, now: number, submittedAt: number): PollResult {
  switch (task.status) {
    case "queued":
      return { state: "queued", progress: queued(config, task, now, submittedAt) };
    case "running":
      return { state: "running", progress: running(config, task, now, submittedAt) };
    case "succeeded":
      if (!hasVideo(task)) throw malformed(config, "a succeeded task without content.video_url");
      return { state: "succeeded" };
    case "failed":
      return { state: "failed", error: failureOf(config, task) };
    case "cancelled":
      return {
        state: "failed",
        error: {
          code: "model_request_failed",
          message: `${config.name}: the task was cancelled upstream (by the account, not by this service).`,
        },
      };
    case "expired":
      return {
        state: "failed",
        error: {
          code: "model_timeout",
          message: `${config.name}: the task expired before it finished (execution_expires_after).`,
        },
      };
    default: {
      const word = task.status.replace(/[^a-z0-9_ -]/gi, "").slice(0, 32);
      // Still waiting, on the queued curve: progress must not jump ahead and come back.
      return { state: "running", progress: queued(config, task, now, submittedAt, `${config.name}: status "${word}"`) };
    }
  }
}
