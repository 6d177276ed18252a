/** Storing the outputs: once copied and measured, the task is decided a success and priced. */

import { type PricedMeter, usageLines } from "../../catalog/pricing";
import { awaitDelivery } from "../../destinations/delivery";
import { dec, fmt } from "../../lib/decimal";
import { tenantKeyLines } from "../../provider-keys/fee";
import { providerMessage } from "../../providers/messages";
import { paced } from "../../providers/pace";
import type { RoutePlan } from "../../providers/routing";
import { ProviderError, type ProviderOutput, type ProviderResult, SAFETY_CODES } from "../../providers/types";
import { emptyUsage, type TaskRecord, type Usage } from "../../task-record/record";
import { StepLog, type StepResult } from "../../task-record/step-effects";
import { failOrNextModel } from "./model-fallback";
import { decide, fail } from "./outcome";

export const FETCH_ATTEMPTS = 3;
const FETCH_RETRY_MS = 1000;

/** An output as stored and listed in `output.artifacts`. */
export interface StoredOutput {
  kind: ProviderOutput["kind"];
  artifact_id: string;
  url: string;
  content_type: string;
  bytes: number;
  index: number;
  width?: number;
  height?: number;
  duration_seconds?: number;
  /** ISO 8601: when the output is deleted (src/retention/outputs.ts). */
  expires_at?: string;
}

/** The attempt is counted before the download, so a crash mid-download still counts it. */
export function beginFetch(rec: TaskRecord): StepResult {
  return new StepLog(rec).save({ ...rec, fetch_attempts: rec.fetch_attempts + 1 }).done(false);
}

/** Reading or storing the result failed: try again shortly, up to FETCH_ATTEMPTS in all. */
export function fetchFailed(rec: TaskRecord, error: unknown, now: number, pace = 1): StepResult {
  const log = new StepLog(rec);
  const pe = error instanceof ProviderError ? error : null;
  // A filtered output is an answer, not a failed download: refund now, never try elsewhere.
  if (pe && SAFETY_CODES.has(pe.code)) return log.save(fail(rec, pe.code, providerMessage(pe))).done(false);
  if (rec.fetch_attempts >= FETCH_ATTEMPTS) {
    return log
      .save(
        failOrNextModel(
          rec,
          "model_output_invalid",
          `The output could not be downloaded after ${FETCH_ATTEMPTS} attempts: ${providerMessage(error)}`,
          now,
        ),
      )
      .done(false);
  }
  return log
    .save({ ...rec, next_poll_at: now + Math.max(pe?.retryAfterMs ?? 0, paced(FETCH_RETRY_MS * rec.fetch_attempts, pace)) })
    .done(true);
}

/**
 * Every output is in storage: the record takes the outputs and their measured usage, and the task
 * is decided a success. `current` is false when the task moved on meanwhile (a cancel): then only
 * the log says the outputs were stored.
 */
export function outputsStored(
  rec: TaskRecord,
  input: { files: StoredOutput[]; result: ProviderResult; current: boolean },
): StepResult {
  const { files, result } = input;
  const log = new StepLog(rec).event("outputs_stored", { count: files.length });
  if (!input.current) return log.done(false);
  const views = files.map(({ kind: _k, ...f }) => f);
  const stored: TaskRecord = {
    ...rec,
    usage: billedUsage(
      measureUsage(files, result.usage, rec.request),
      rec.route_pricing?.[rec.route_index] ?? rec.pricing,
      rec.route,
    ),
    output: {
      ...(files.some((f) => f.kind === "image") ? { images: views.filter((_, i) => files[i]?.kind === "image") } : {}),
      artifacts: views,
      ...(result.text !== undefined ? { text: result.text } : {}),
      provider: { name: rec.route.provider, model: rec.route.upstream_model, ...(result.metadata ?? {}) },
    },
    retention: rec.retention && files[0]?.expires_at ? { ...rec.retention, expires_at: files[0].expires_at } : rec.retention,
  };
  return log
    .save(awaitDelivery(decide(stored, { status: "succeeded" })))
    .checkpoint("store")
    .done(false);
}

/** The measured usage, priced as the route that served the task prices it. */
function billedUsage(measured: Record<string, number>, pricing: PricedMeter[], route: RoutePlan): Usage {
  const usage = emptyUsage();
  for (const [k, v] of Object.entries(measured))
    if (k in usage && k !== "lines" && k !== "credits") (usage as unknown as Record<string, number>)[k] = v;
  usage.lines = usageLines(pricing, measured);
  // On the tenant's own key the card price is not charged, only the platform fee on it.
  if (route.key === "tenant") usage.lines = tenantKeyLines(usage.lines, route.fee_percent ?? "0");
  usage.credits = fmt(usage.lines.reduce((acc, l) => acc.plus(l.billed_amount_credits), dec(0)));
  return usage;
}

/**
 * Usage as billed: what the upstream reported, completed by what the stored outputs measure
 * (images and their pixels, seconds of video and audio), so a price never rests on the request alone.
 */
export function measureUsage(files: StoredOutput[], reported: Record<string, number>, request: Record<string, unknown>) {
  const usage: Record<string, number> = { ...reported };
  const images = files.filter((f) => f.kind === "image");
  if (images.length > 0) {
    usage.image_count ??= images.length;
    usage.image_pixels ??= images.reduce((n, f) => n + (f.width ?? 0) * (f.height ?? 0), 0);
  }
  const seconds = (kind: StoredOutput["kind"]) =>
    files.filter((f) => f.kind === kind).reduce((n, f) => n + (f.duration_seconds ?? 0), 0);
  const video = files.filter((f) => f.kind === "video");
  if (video.length > 0 && usage.output_video_seconds === undefined) {
    const measured = Math.round(seconds("video"));
    // A clip too large to probe whole is billed at the requested duration.
    usage.output_video_seconds = measured > 0 ? measured : Number(request.duration ?? 0);
  }
  if (video.length > 0) usage.video_seconds ??= usage.output_video_seconds as number;
  if (files.some((f) => f.kind === "audio")) usage.audio_seconds ??= Math.round(seconds("audio"));
  return usage;
}
