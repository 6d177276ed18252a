/**
 * A Runway task (`GET /v1/tasks/{id}`) in the service's terms. The statuses the SDK's
 * `TaskRetrieveResponse` lists, and how each is read:
 *   PENDING    → queued
 *   THROTTLED  → queued: the organisation is at its concurrency limit and the task waits for a slot
 *   RUNNING    → running, with Runway's `progress` (a fraction of one)
 *   SUCCEEDED  → succeeded once `output` holds at least one URL; without it the answer is malformed
 *   FAILED     → failed by `failureCode` (docs "Task failures"):
 *                  SAFETY.INPUT.*, INPUT_PREPROCESSING.SAFETY.*  → safety_rejected (never retried)
 *                  SAFETY.OUTPUT.*                               → content_filtered (never retried)
 *                  other SAFETY.*                                → safety_rejected
 *                  anything else (INTERNAL.BAD_OUTPUT.*, …)      → model_request_failed
 *   CANCELLED  → failed, model_request_failed (cancelled or deleted by someone other than this task)
 *   anything else → still running, so a status added later never ends a task that may yet finish
 * Runway asks that a task not be read more than once every five seconds or so (the SDK waits
 * about six); early reads come sooner so that short jobs are not held back.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { malformed } from "../http";
import { growingDelay } from "../pace";
import type { PollResult, Progress } from "../types";
import { safeWording } from "./client";

export interface RunwayTask {
  id?: unknown;
  status?: unknown;
  progress?: unknown;
  output?: unknown;
  failure?: unknown;
  failureCode?: unknown;
  createdAt?: unknown;
}

export const STATUS = {
  pending: "PENDING",
  throttled: "THROTTLED",
  running: "RUNNING",
  succeeded: "SUCCEEDED",
  failed: "FAILED",
  cancelled: "CANCELLED",
} as const;

/** How long to wait before the next read: short at first, longer as a task grows old; `pace` scales it (../pace.ts). */
export function pollDelay(elapsedMs: number, pace = 1): number {
  return growingDelay(elapsedMs, 1_000, 5_000, pace);
}

/** Runway's `progress` (0–1) as 5–95 %, so that running is always past queued and short of done. */
export function runningPercent(progress: unknown): number {
  const p = typeof progress === "number" && Number.isFinite(progress) ? Math.min(1, Math.max(0, progress)) : 0;
  return Math.floor(5 + 90 * p);
}

/** A machine word Runway sent (a failure code), reduced to what such a word can contain. */
export function machineWord(value: unknown): string | undefined {
  const w = typeof value === "string" ? value.replace(/[^A-Za-z0-9_.-]/g, "").slice(0, 80) : "";
  return w || undefined;
}

/** The service's code for a failure code; see the table above. */
export function codeForFailure(failureCode: string | undefined): ErrorCode {
  const c = (failureCode ?? "").toUpperCase();
  if (c.startsWith("SAFETY.OUTPUT")) return "content_filtered";
  if (c.startsWith("SAFETY.") || c.startsWith("INPUT_PREPROCESSING.SAFETY")) return "safety_rejected";
  return "model_request_failed";
}

/** The failure in words: Runway's code and its own explanation, made safe. */
export function failureMessage(config: ProviderConfig, task: RunwayTask): string {
  const code = machineWord(task.failureCode);
  const said = typeof task.failure === "string" && task.failure.trim() ? safeWording(config, task.failure, 400) : "";
  return `${config.name} reports the task failed${code ? ` (${code})` : ""}${said ? `: ${said}` : "."}`;
}

/** The output URLs of a SUCCEEDED answer, or a malformed-answer error. */
export function outputUrls(config: ProviderConfig, task: RunwayTask): string[] {
  const out = task.output;
  if (!Array.isArray(out) || out.length === 0) throw malformed(config, "a SUCCEEDED task without output URLs");
  const urls = out.filter((u): u is string => typeof u === "string" && /^https?:\/\/\S+$/i.test(u));
  if (urls.length !== out.length) throw malformed(config, "an output entry that is not a URL");
  return urls;
}

function waiting(state: "queued" | "running", progress: Progress, elapsedMs: number, pace: number): PollResult {
  return { state, progress, poll_after_ms: pollDelay(elapsedMs, pace) };
}

export function pollResultOf(config: ProviderConfig, task: unknown, elapsedMs: number, pace = 1): PollResult {
  if (!task || typeof task !== "object" || Array.isArray(task)) throw malformed(config, "the task is not an object");
  const t = task as RunwayTask;
  if (typeof t.status !== "string") throw malformed(config, "the task has no status");
  switch (t.status) {
    case STATUS.pending:
      return waiting("queued", { percent: 2, stage: "queued", message: `Waiting in ${config.name}'s queue` }, elapsedMs, pace);
    case STATUS.throttled:
      return waiting(
        "queued",
        { percent: 3, stage: "queued", message: `Throttled at ${config.name}: waiting for a free generation slot` },
        elapsedMs,
        pace,
      );
    case STATUS.running: {
      const percent = runningPercent(t.progress);
      const reported = typeof t.progress === "number" && Number.isFinite(t.progress);
      return waiting(
        "running",
        {
          percent,
          stage: "generating",
          message: reported
            ? `Generating at ${config.name}: ${Math.round(Math.min(1, Math.max(0, t.progress as number)) * 100)}%`
            : `Generating at ${config.name}`,
        },
        elapsedMs,
        pace,
      );
    }
    case STATUS.succeeded:
      outputUrls(config, t);
      return { state: "succeeded" };
    case STATUS.failed:
      return { state: "failed", error: { code: codeForFailure(machineWord(t.failureCode)), message: failureMessage(config, t) } };
    case STATUS.cancelled:
      return {
        state: "failed",
        error: { code: "model_request_failed", message: `${config.name} reports the task was cancelled or deleted.` },
      };
    default: {
      const shown = t.status.replace(/[^A-Za-z0-9 _-]/g, "").slice(0, 40) || "an empty status";
      return waiting(
        "running",
        { percent: runningPercent(t.progress), stage: "generating", message: `${config.name} reports "${shown}"; still waiting` },
        elapsedMs,
        pace,
      );
    }
  }
}
