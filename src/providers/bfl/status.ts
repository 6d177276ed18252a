/**
 * A BFL result answer (`GET polling_url`, i.e. `/v1/get_result?id=`) in the service's terms. The
 * answer is `{id, status, result, progress, details, preview}` (OpenAPI `ResultResponse`), and the
 * statuses BFL documents (`StatusResponse`; help.bfl.ai "Why did my request fail?") are:
 *   Pending            → running: BFL does not tell queued from processing; progress is BFL's own
 *                        `progress` when it sends one (a fraction), else a curve of elapsed time
 *   Ready              → succeeded, once `result.sample` (the signed image URL) is there; a Ready
 *                        without it is a malformed answer, never a success
 *   Request Moderated  → failed, safety_rejected  (the input was flagged before processing; not charged)
 *   Content Moderated  → failed, content_filtered (the output was flagged after processing; not charged)
 *   Error              → failed, by the `error` code BFL's error-handling guide lists for it:
 *                        `content_policy_violation` (the prompt or image flagged) → safety_rejected,
 *                        refunded and never tried elsewhere; `invalid_image` → invalid_media;
 *                        `generation_timeout` → model_timeout; anything else → model_request_failed
 *   Task not found     → failed, model_request_failed (the id does not exist or has expired)
 *   anything else      → running, so that a status added later never ends a job that may still finish
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { malformed } from "../http";
import { growingDelay } from "../pace";
import type { PollResult, Progress } from "../types";
import { isSafetyRefusal, safeWording } from "./client";

export interface BflResultAnswer {
  id?: unknown;
  status?: unknown;
  result?: unknown;
  progress?: unknown;
  details?: unknown;
  error?: unknown;
  message?: unknown;
}

export const STATUS = {
  pending: "Pending",
  ready: "Ready",
  requestModerated: "Request Moderated",
  contentModerated: "Content Moderated",
  error: "Error",
  notFound: "Task not found",
} as const;

/** Typical run time of one FLUX image, for progress that moves while BFL reports none. */
export const TYPICAL_MS = 15_000;

/** How long to wait before reading again: short at first, longer as a task grows old; `pace` scales it (../pace.ts). */
export function pollDelay(elapsedMs: number, pace = 1): number {
  return growingDelay(elapsedMs, 750, 5_000, pace);
}

/** BFL's `progress` as a percentage: a fraction of one (as its schema gives it), or already a percentage. */
export function bflPercent(progress: unknown): number | undefined {
  if (typeof progress !== "number" || !Number.isFinite(progress) || progress < 0) return undefined;
  if (progress <= 1) return progress * 100;
  return progress <= 100 ? progress : undefined;
}

/** Running progress from 5 % to 90 %: the larger of BFL's figure and an elapsed-time curve. */
export function runningPercent(elapsedMs: number, progress: unknown): number {
  const byTime = 5 + 85 * (1 - Math.exp(-Math.max(0, elapsedMs) / TYPICAL_MS));
  const reported = bflPercent(progress);
  const byBfl = reported === undefined ? 0 : 5 + 0.85 * reported;
  return Math.floor(Math.min(90, Math.max(5, byTime, byBfl)));
}

/** The signed image URL of a Ready answer, when it has one. */
export function sampleOf(answer: BflResultAnswer): string | undefined {
  const result = answer.result;
  const sample = result && typeof result === "object" ? (result as { sample?: unknown }).sample : undefined;
  return typeof sample === "string" && /^https?:\/\//i.test(sample) ? sample : undefined;
}

/** What BFL said about an end: its `details` (e.g. moderation reasons) and any `error`/`message`, made safe. */
export function detailsOf(config: ProviderConfig, answer: BflResultAnswer): string | undefined {
  const parts: string[] = [];
  for (const key of ["error", "message"] as const) {
    const v = answer[key];
    if (typeof v === "string" && v.trim()) parts.push(v.trim());
  }
  const details = answer.details;
  if (typeof details === "string" && details.trim()) parts.push(details.trim());
  else if (details && typeof details === "object" && !Array.isArray(details)) {
    for (const [k, v] of Object.entries(details as Record<string, unknown>)) {
      const value = Array.isArray(v)
        ? v.filter((x) => typeof x === "string" || typeof x === "number").join(", ")
        : typeof v === "string" || typeof v === "number" || typeof v === "boolean"
          ? String(v)
          : "";
      if (value) parts.push(`${k}: ${value}`);
    }
  }
  return parts.length > 0 ? safeWording(config, parts.join("; "), 400) : undefined;
}

/** The public code of a task that ended `Error`, from the failure reason BFL names in `error`. */
export function errorCodeOf(answer: BflResultAnswer, said: string | undefined): ErrorCode {
  const error = typeof answer.error === "string" ? answer.error.trim().toLowerCase() : undefined;
  const message = typeof answer.message === "string" ? answer.message : "";
  if (isSafetyRefusal({ error, message }, said ?? message)) return "safety_rejected";
  if (error === "invalid_image") return "invalid_media";
  if (error === "generation_timeout") return "model_timeout";
  return "model_request_failed";
}

function failed(code: ErrorCode, message: string): PollResult {
  return { state: "failed", error: { code, message } };
}

function running(progress: Progress, elapsedMs: number, pace: number): PollResult {
  return { state: "running", progress, poll_after_ms: pollDelay(elapsedMs, pace) };
}

/** The poll result of one answer; an answer without a status, or a Ready without its image, throws as malformed. */
export function pollResultOf(config: ProviderConfig, answer: unknown, elapsedMs: number, pace = 1): PollResult {
  if (!answer || typeof answer !== "object" || Array.isArray(answer))
    throw malformed(config, "the result answer is not an object");
  const a = answer as BflResultAnswer;
  if (typeof a.status !== "string") throw malformed(config, "the result answer has no status");
  const said = detailsOf(config, a);
  const why = (what: string) => `${config.name} ${what}${said ? `: ${said}` : "."}`;
  switch (a.status) {
    case STATUS.ready:
      if (!sampleOf(a)) throw malformed(config, "a Ready answer without result.sample");
      return { state: "succeeded" };
    case STATUS.pending: {
      const reported = bflPercent(a.progress);
      const message =
        reported === undefined ? `Generating at ${config.name}` : `Generating at ${config.name}: ${Math.round(reported)}%`;
      return running({ percent: runningPercent(elapsedMs, a.progress), stage: "generating", message }, elapsedMs, pace);
    }
    case STATUS.requestModerated:
      return failed("safety_rejected", why("refused the request on content moderation (Request Moderated)"));
    case STATUS.contentModerated:
      return failed("content_filtered", why("withheld the generated image on content moderation (Content Moderated)"));
    case STATUS.error: {
      const code = errorCodeOf(a, said);
      return failed(
        code,
        why(
          code === "safety_rejected" ? "refused the request on content policy (Error)" : "reports the generation failed (Error)",
        ),
      );
    }
    case STATUS.notFound:
      return failed("model_request_failed", why("no longer knows the task (Task not found: unknown or expired)"));
    default: {
      const shown = a.status.replace(/[^A-Za-z0-9 _-]/g, "").slice(0, 40) || "an empty status";
      return running(
        {
          percent: runningPercent(elapsedMs, a.progress),
          stage: "generating",
          message: `${config.name} reports "${shown}"; still waiting`,
        },
        elapsedMs,
        pace,
      );
    }
  }
}
