/**
 * A prediction's status in the service's terms. Replicate documents six statuses
 * (replicate.com/docs/topics/predictions/lifecycle):
 *   starting    → queued   (waiting for a worker; progress creeps up with the wait)
 *   processing  → running  (progress from the model's logs when they show it, else from elapsed time)
 *   succeeded   → succeeded
 *   failed      → failed: safety wording → safety_rejected / content_filtered; else
 *                 model_request_failed with Replicate's words made safe
 *   canceled    → failed, model_request_failed: when the service cancels it stops polling, so a
 *                 canceled prediction seen here was canceled by someone else (a deadline, the account)
 *   aborted     → failed, model_timeout: its deadline passed before it started
 *   anything else → running, so that a status added later does not end a job that may still finish
 *                 (its progress stays on the queued curve until the prediction has started)
 */
import type { ProviderConfig } from "../config";
import type { PollResult, Progress } from "../types";
import { safetyCode, safeWording } from "./client";
import type { Prediction } from "./predictions";

/** A typical flux-2-pro run, for progress by elapsed time when the logs say nothing. */
const EXPECTED_RUN_MS = 20_000;

function at(value: string | null | undefined, fallback: number): number {
  const t = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isFinite(t) ? t : fallback;
}

/** The last percentage the logs show ("45%|████▌     | 13/28", as progress bars print it). */
export function logPercent(logs: string | null | undefined): number | null {
  if (!logs) return null;
  const tail = logs.slice(-2000);
  let found: number | null = null;
  for (const m of tail.matchAll(/\b(\d{1,3})%/g)) {
    const value = Number(m[1]);
    if (value <= 100) found = value;
  }
  return found;
}

function lastLine(config: ProviderConfig, logs: string | null | undefined): string | null {
  const line = (logs ?? "")
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .pop();
  return line ? safeWording(config, line, 160) : null;
}

/** Queued: 0-9 %, one point per five seconds of waiting, so that a long cold boot still shows movement. */
function queued(prediction: Prediction, now: number, submittedAt: number): Progress {
  const waited = Math.max(0, now - at(prediction.created_at, submittedAt));
  return {
    percent: Math.min(9, Math.floor(waited / 5000)),
    stage: "queued",
    message: "replicate: starting (waiting for a worker)",
  };
}

/** Running: 10-95 %, the larger of what the logs show and an elapsed-time curve that never reaches the end. */
function running(config: ProviderConfig, prediction: Prediction, now: number, submittedAt: number, note?: string): Progress {
  const startedAt = at(prediction.started_at, at(prediction.created_at, submittedAt));
  const elapsed = Math.max(0, now - startedAt);
  const byTime = 10 + 85 * (1 - Math.exp(-elapsed / EXPECTED_RUN_MS));
  const fromLogs = logPercent(prediction.logs);
  const byLogs = fromLogs === null ? 0 : 10 + 0.85 * fromLogs;
  return {
    percent: Math.max(10, Math.min(95, Math.floor(Math.max(byTime, byLogs)))),
    stage: "generating",
    message: note ?? lastLine(config, prediction.logs) ?? "replicate: processing",
  };
}

/** Why a failed prediction failed, in the public vocabulary. */
export function failureOf(
  config: ProviderConfig,
  prediction: Prediction,
): { code: "safety_rejected" | "content_filtered" | "model_request_failed"; message: string } {
  const raw = prediction.error;
  const text =
    typeof raw === "string" && raw.trim().length > 0
      ? raw
      : raw && typeof raw === "object"
        ? JSON.stringify(raw)
        : "the prediction failed without an error message";
  // A prediction that never started cannot have produced anything: a refusal then is about the input.
  const started = Boolean(prediction.started_at) || typeof prediction.metrics?.predict_time === "number";
  const safety = safetyCode(text, started);
  const code = safety === "safety_rejected" || safety === "content_filtered" ? safety : "model_request_failed";
  return { code, message: `replicate: ${safeWording(config, text)}` };
}

export function pollResult(config: ProviderConfig, prediction: Prediction, now: number, submittedAt: number): PollResult {
  switch (prediction.status) {
    case "starting":
      return { state: "queued", progress: queued(prediction, now, submittedAt) };
    case "processing":
      return { state: "running", progress: running(config, prediction, now, submittedAt) };
    case "succeeded":
      return { state: "succeeded" };
    case "failed":
      return { state: "failed", error: failureOf(config, prediction) };
    case "canceled":
      return {
        state: "failed",
        error: {
          code: "model_request_failed",
          message: "replicate: the prediction was canceled upstream (a deadline or the account owner), not by this service.",
        },
      };
    case "aborted":
      return {
        state: "failed",
        error: { code: "model_timeout", message: "replicate: the prediction reached its deadline before it started (aborted)." },
      };
    default: {
      const status = String(prediction.status)
        .replace(/[^a-z0-9_ -]/gi, "")
        .slice(0, 32);
      const note = `replicate: status "${status}"`;
      // Not started yet: stay on the queued curve, so that progress does not jump ahead and back.
      const progress = prediction.started_at
        ? running(config, prediction, now, submittedAt, note)
        : { ...queued(prediction, now, submittedAt), message: note };
      return { state: "running", progress };
    }
  }
}
