/**
 * A Kie Suno task record (`GET /api/v1/generate/record-info?taskId=`, docs.kie.ai "Get Music
 * Task Details") in the service's terms. The record is `data: {taskId, status, response:
 * {sunoData: [{id, audioUrl, streamAudioUrl, imageUrl, prompt, title, tags, duration}]},
 * errorCode, errorMessage}`, and the statuses Kie documents are:
 *   PENDING               → queued (waiting to be processed)
 *   TEXT_SUCCESS          → running: the lyrics/text are done
 *   FIRST_SUCCESS         → running: the first track is done
 *   SUCCESS               → succeeded, once every track has its audioUrl (else malformed)
 *   CREATE_TASK_FAILED    → failed, model_request_failed (safety_rejected when the words say so)
 *   GENERATE_AUDIO_FAILED → failed, model_request_failed (content_filtered when the words say so)
 *   CALLBACK_EXCEPTION    → "error during callback processing": this service polls and the
 *                           callback is incidental, so succeeded when every track is there,
 *                           else failed
 *   SENSITIVE_WORD_ERROR  → failed: safety_rejected while nothing was generated (the prompt or
 *                           lyrics were refused), content_filtered once Suno had produced lyrics
 *                           or audio (what it made was withheld)
 *   anything else         → running, so that a status added later never ends a job
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { malformed } from "../http";
import { growingDelay } from "../pace";
import { type PollResult, ProviderError, type ProviderHandle, type ProviderResult } from "../types";
import { safeWording, soundsLikeSafety } from "./client";

export interface SunoTrack {
  id?: unknown;
  audioUrl?: unknown;
  streamAudioUrl?: unknown;
  prompt?: unknown;
  title?: unknown;
  duration?: unknown;
}

export interface KieRecord {
  taskId?: unknown;
  status?: unknown;
  response?: { sunoData?: unknown } | null;
  errorCode?: unknown;
  errorMessage?: unknown;
}

export const STATUS = {
  pending: "PENDING",
  text: "TEXT_SUCCESS",
  first: "FIRST_SUCCESS",
  success: "SUCCESS",
  createFailed: "CREATE_TASK_FAILED",
  audioFailed: "GENERATE_AUDIO_FAILED",
  callbackException: "CALLBACK_EXCEPTION",
  sensitive: "SENSITIVE_WORD_ERROR",
} as const;

/** A typical Suno generation (two full songs): about a minute to three. */
export const TYPICAL_MS = 90_000;

/** How long to wait before the next read: short at first, longer as a job grows old; `pace` scales it (../pace.ts). */
export function pollDelay(elapsedMs: number, pace = 1): number {
  return growingDelay(elapsedMs, 1_000, 10_000, pace);
}

/** Progress from elapsed time, never below the stage's floor: it moves even while Kie says nothing new. */
export function percentFor(floor: number, elapsedMs: number): number {
  const byTime = 5 + 85 * (1 - Math.exp(-Math.max(0, elapsedMs) / TYPICAL_MS));
  return Math.floor(Math.min(95, Math.max(floor, byTime)));
}

export function tracksOf(record: KieRecord): SunoTrack[] {
  const list = record.response?.sunoData;
  return Array.isArray(list) ? list.filter((t): t is SunoTrack => !!t && typeof t === "object") : [];
}

function audioUrl(track: SunoTrack): string | undefined {
  const u = track.audioUrl;
  return typeof u === "string" && /^https?:\/\/\S+$/i.test(u) && u.length <= 4000 ? u : undefined;
}

/** The tracks with a finished audio file, in Kie's order. */
export function finishedTracks(record: KieRecord): { track: SunoTrack; url: string }[] {
  return tracksOf(record).flatMap((track) => {
    const url = audioUrl(track);
    return url ? [{ track, url }] : [];
  });
}

function said(config: ProviderConfig, record: KieRecord): string | undefined {
  const parts: string[] = [];
  if (typeof record.errorMessage === "string" && record.errorMessage.trim()) parts.push(record.errorMessage.trim());
  if (typeof record.errorCode === "number" || typeof record.errorCode === "string") parts.push(`code ${record.errorCode}`);
  return parts.length > 0 ? safeWording(config, parts.join("; ")) : undefined;
}

function failed(code: ErrorCode, message: string): PollResult {
  return { state: "failed", error: { code, message } };
}

export function recordOf(config: ProviderConfig, data: unknown): KieRecord {
  if (!data || typeof data !== "object" || Array.isArray(data)) throw malformed(config, "the task record is not an object");
  const record = data as KieRecord;
  if (typeof record.status !== "string" || !record.status) throw malformed(config, "the task record has no status");
  return record;
}

/** The poll result of one record; `tracks` is the count the job expects. */
export function pollResultOf(config: ProviderConfig, data: unknown, tracks: number, elapsedMs: number, pace = 1): PollResult {
  const record = recordOf(config, data);
  const status = record.status as string;
  const words = said(config, record);
  const why = (what: string) => `${config.name} ${what}${words ? `: ${words}` : "."}`;
  const running = (floor: number, message: string): PollResult => ({
    state: "running",
    progress: { percent: percentFor(floor, elapsedMs), stage: "generating", message },
    poll_after_ms: pollDelay(elapsedMs, pace),
  });
  const complete = finishedTracks(record).length >= tracks;
  switch (status) {
    case STATUS.pending:
      return {
        state: "queued",
        progress: { percent: percentFor(2, elapsedMs), stage: "queued", message: `Waiting at ${config.name}` },
        poll_after_ms: pollDelay(elapsedMs, pace),
      };
    case STATUS.text:
      return running(30, `Lyrics written at ${config.name}; generating audio`);
    case STATUS.first:
      return running(60, `First track done at ${config.name}; finishing the second`);
    case STATUS.success:
      if (!complete) throw malformed(config, `SUCCESS with fewer than ${tracks} tracks carrying an audioUrl`);
      return { state: "succeeded" };
    case STATUS.callbackException:
      if (complete) return { state: "succeeded" };
      return failed("model_request_failed", why("reports a callback exception before the tracks were done"));
    case STATUS.sensitive:
      // Anything already generated (lyrics written by Suno, a first track) means the output was withheld.
      return tracksOf(record).length > 0
        ? failed("content_filtered", why("withheld the generated song on sensitive words (SENSITIVE_WORD_ERROR)"))
        : failed("safety_rejected", why("refused the prompt or lyrics on sensitive words (SENSITIVE_WORD_ERROR)"));
    case STATUS.createFailed:
      return soundsLikeSafety(words ?? "")
        ? failed("safety_rejected", why("refused the request (CREATE_TASK_FAILED)"))
        : failed("model_request_failed", why("could not create the task (CREATE_TASK_FAILED)"));
    case STATUS.audioFailed:
      return soundsLikeSafety(words ?? "")
        ? failed("content_filtered", why("withheld the generated audio (GENERATE_AUDIO_FAILED)"))
        : failed("model_request_failed", why("reports the audio generation failed (GENERATE_AUDIO_FAILED)"));
    default: {
      const shown = status.replace(/[^A-Za-z0-9 _-]/g, "").slice(0, 40) || "an empty status";
      return running(2, `${config.name} reports "${shown}"; still waiting`);
    }
  }
}

/** A finished record as the job's outputs: the first `tracks` audio files, as URLs the service copies at once. */
export function resultOf(config: ProviderConfig, handle: ProviderHandle, data: unknown, tracks: number): ProviderResult {
  const record = recordOf(config, data);
  const status = record.status as string;
  if (status !== STATUS.success && status !== STATUS.callbackException) {
    throw new ProviderError(
      "model_request_failed",
      `${config.name} has no result to read (status "${status.replace(/[^A-Za-z0-9 _-]/g, "").slice(0, 40)}").`,
      { retryable: true },
    );
  }
  const done = finishedTracks(record);
  if (done.length < tracks) throw malformed(config, `a finished task with ${done.length} of ${tracks} tracks`);
  const chosen = done.slice(0, tracks);
  return {
    // Kie's audio links are kept for about two weeks only: the service stores its own copy.
    outputs: chosen.map(({ url }, index) => ({ kind: "audio" as const, index, url })),
    // Priced per delivered track (the card's meter); the service measures the seconds itself.
    usage: { tracks: chosen.length },
    metadata: {
      kie_task_id: handle.job_id,
      titles: chosen.map(({ track }) => (typeof track.title === "string" ? track.title.slice(0, 200) : null)),
    },
  };
}
