/**
 * A Ray 3.2 generation's state in the service's terms. Luma documents (SDK `Generation.state`,
 * error-handling guide's failure codes):
 *   queued      → queued   (Luma reports no position or percentage: progress creeps with the wait)
 *   processing  → running  (progress on a curve of the time since submission that never reaches 100)
 *   completed   → succeeded once `output` holds a video URL (without one: a malformed answer)
 *   failed      → failed, by `failure_code`:
 *                   content_moderated → safety_rejected ("prompt or input image violated content
 *                     guidelines"), or content_filtered when the reason speaks of the output
 *                   budget_exhausted → model_unavailable (this account cannot pay; not retried here)
 *                   image_too_large / unsupported_format / corrupt_input → invalid_media
 *                   invalid_request → invalid_request
 *                   generation_failed / output_not_found / rate_limited / anything else →
 *                     model_request_failed
 *   anything else (older `dreaming`, a state added later) → running, on the queued curve
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderConfig } from "../config";
import { malformed } from "../http";
import type { PollResult, Progress } from "../types";
import { safeWording } from "./client";
import { type LumaGeneration, videoUrl } from "./generations";

/** A typical 5 s 720p run ("under 2 minutes" in the guide), for progress that moves. */
export const EXPECTED_RUN_MS = 90_000;

function queued(config: ProviderConfig, now: number, submittedAt: number, note?: string): Progress {
  const waited = Math.max(0, now - submittedAt);
  return { percent: Math.min(9, Math.floor(waited / 5000)), stage: "queued", message: note ?? `${config.name}: queued` };
}

function running(config: ProviderConfig, now: number, submittedAt: number): Progress {
  const elapsed = Math.max(0, now - submittedAt);
  const percent = 10 + 85 * (1 - Math.exp(-elapsed / EXPECTED_RUN_MS));
  return { percent: Math.max(10, Math.min(95, Math.floor(percent))), stage: "generating", message: `${config.name}: generating` };
}

// Luma names one moderation code for prompt and input; a reason about the result is the output's.
const ABOUT_OUTPUT = /\b(?:output|generated (?:video|content|result)|result)\b/i;

export function failureOf(config: ProviderConfig, g: LumaGeneration): { code: ErrorCode; message: string } {
  const failure = typeof g.failure_code === "string" ? g.failure_code : "";
  const reason = typeof g.failure_reason === "string" && g.failure_reason ? g.failure_reason : "";
  const wording = safeWording(config, reason || (failure ? `failed (${failure})` : "the generation failed without a reason"));
  let code: ErrorCode;
  switch (failure) {
    case "content_moderated":
      code = ABOUT_OUTPUT.test(reason) ? "content_filtered" : "safety_rejected";
      break;
    case "budget_exhausted":
      code = "model_unavailable";
      break;
    case "image_too_large":
    case "unsupported_format":
    case "corrupt_input":
      code = "invalid_media";
      break;
    case "invalid_request":
      code = "invalid_request";
      break;
    default:
      code = "model_request_failed";
  }
  return { code, message: `${config.name}: ${wording}` };
}

export function pollResult(config: ProviderConfig, g: LumaGeneration, now: number, submittedAt: number): PollResult {
  switch (g.state) {
    case "queued":
      return { state: "queued", progress: queued(config, now, submittedAt) };
    case "processing":
      return { state: "running", progress: running(config, now, submittedAt) };
    case "completed":
      if (!videoUrl(g)) throw malformed(config, "a completed generation without a video in output");
      return { state: "succeeded" };
    case "failed":
      return { state: "failed", error: failureOf(config, g) };
    default: {
      const word = g.state.replace(/[^a-z0-9_ -]/gi, "").slice(0, 32);
      // Still waiting, on the queued curve, so progress never jumps ahead and comes back.
      return { state: "running", progress: queued(config, now, submittedAt, `${config.name}: state "${word}"`) };
    }
  }
}
