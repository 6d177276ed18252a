/**
 * fal's request statuses in the service's terms. The documented ones are IN_QUEUE (with
 * `queue_position`, the number of requests ahead, passed on as the progress's `queue_position`), IN_PROGRESS (with the runner's `logs`) and
 * COMPLETED (with `metrics`, and `error`/`error_type` when the request failed). COMPLETED does not
 * say the request succeeded: the result answer does. FAILED and CANCELED are not in fal's own
 * documentation but appear in third-party schemas; they are read as ends, never as success.
 * Anything else is taken as still running, so an unknown word never finishes a task.
 */
import { safeProviderMessage } from "../messages";
import { growingDelay } from "../pace";
import type { PollResult, Progress } from "../types";
import type { FalLog, FalStatus } from "./queue";

export type StatusReading =
  | { next: "wait"; result: Extract<PollResult, { state: "queued" | "running" }> }
  /** The request has ended: its result answer decides (`failed` when fal already said so). */
  | { next: "result"; failed: boolean; error?: string; errorType?: string }
  | { next: "canceled" };

export interface StatusContext {
  /** Milliseconds since submission. */
  elapsedMs: number;
  /** Typical time for this kind of job, for progress that moves while fal reports none. */
  typicalMs: number;
  secrets: string[];
  /** Scales the wait before the next read (../pace.ts); 1 unless set. */
  pace?: number;
}

/** How long to wait before the next status read: short at first, longer as a job grows old; `pace` scales it. */
export function pollDelay(elapsedMs: number, pace = 1): number {
  return growingDelay(elapsedMs, 1_000, 10_000, pace);
}

function logsOf(status: FalStatus): FalLog[] {
  return Array.isArray(status.logs) ? status.logs.filter((l): l is FalLog => !!l && typeof l === "object") : [];
}

/** The last log line that says something, made safe to show. */
function lastLogLine(logs: FalLog[], secrets: string[]): string | undefined {
  for (let i = logs.length - 1; i >= 0; i--) {
    const m = logs[i]?.message;
    if (typeof m === "string" && m.trim()) return safeProviderMessage(m, secrets, 200);
  }
  return undefined;
}

/** A percentage the runner printed (e.g. "Generating: 45%"), the most recent first. */
function loggedPercent(logs: FalLog[]): number | undefined {
  for (let i = logs.length - 1; i >= 0; i--) {
    const m = logs[i]?.message;
    const found = typeof m === "string" ? /(\d{1,3}(?:\.\d+)?)\s?%/.exec(m) : null;
    if (found) {
      const p = Number(found[1]);
      if (p >= 0 && p <= 100) return p;
    }
  }
  return undefined;
}

/** Running progress from 5 % to 90 %: the runner's own figure when it prints one, elapsed time otherwise. */
function runningPercent(ctx: StatusContext, logs: FalLog[]): number {
  const byTime = 5 + 85 * (1 - Math.exp(-ctx.elapsedMs / Math.max(1, ctx.typicalMs)));
  const logged = loggedPercent(logs);
  const byLog = logged === undefined ? 0 : 5 + 0.85 * logged;
  return Math.floor(Math.min(90, Math.max(byTime, byLog, 5)));
}

/** A machine word fal sent (an `error_type`), reduced to what such a word can contain. */
function machineWord(value: unknown): string | undefined {
  const w = typeof value === "string" ? value.replace(/[^A-Za-z0-9_.-]/g, "").slice(0, 60) : "";
  return w || undefined;
}

function running(progress: Progress, ctx: StatusContext, activity: string): StatusReading {
  return { next: "wait", result: { state: "running", progress, poll_after_ms: pollDelay(ctx.elapsedMs, ctx.pace), activity } };
}

/**
 * What fal itself reported, for stall detection: the status word, how many log lines, and the last
 * one made safe (never the percent drawn from elapsed time).
 */
function activityOf(word: string, logs: FalLog[], secrets: string[]): string {
  return JSON.stringify([word, logs.length, lastLogLine(logs, secrets) ?? null]);
}

export function readStatusAnswer(status: FalStatus, ctx: StatusContext): StatusReading {
  const word = typeof status.status === "string" ? status.status.toUpperCase() : "";
  const logs = logsOf(status);
  switch (word) {
    case "IN_QUEUE": {
      const position =
        typeof status.queue_position === "number" && status.queue_position >= 0 ? status.queue_position : undefined;
      const message =
        position === undefined
          ? "Waiting in fal's queue"
          : position === 0
            ? "Waiting in fal's queue: next in line"
            : `Waiting in fal's queue: ${position} request${position === 1 ? "" : "s"} ahead`;
      return {
        next: "wait",
        result: {
          state: "queued",
          progress: { percent: 2, stage: "queued", message, ...(position === undefined ? {} : { queue_position: position }) },
          poll_after_ms: pollDelay(ctx.elapsedMs, ctx.pace),
          activity: JSON.stringify([word, position ?? null]),
        },
      };
    }
    case "IN_PROGRESS":
      return running(
        {
          percent: runningPercent(ctx, logs),
          stage: "generating",
          message: lastLogLine(logs, ctx.secrets) ?? "Generating at fal",
        },
        ctx,
        activityOf(word, logs, ctx.secrets),
      );
    case "COMPLETED": {
      const error =
        typeof status.error === "string" && status.error ? safeProviderMessage(status.error, ctx.secrets, 500) : undefined;
      const errorType = machineWord(status.error_type);
      return { next: "result", failed: !!(error || errorType), error, errorType };
    }
    case "FAILED":
    case "ERROR":
      return { next: "result", failed: true, errorType: machineWord(status.error_type) };
    case "CANCELED":
    case "CANCELLED":
      return { next: "canceled" };
    default: {
      const shown = word.replace(/[^A-Z0-9_]/g, "").slice(0, 40) || "no status";
      return running(
        { percent: runningPercent(ctx, logs), stage: "generating", message: `fal reports "${shown}"; still waiting` },
        ctx,
        activityOf(word, logs, ctx.secrets),
      );
    }
  }
}
