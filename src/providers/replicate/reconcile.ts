/**
 * After a crash between creating a prediction and saving its id: find the prediction this task
 * created. A prediction carries no free-form metadata, and the list of predictions
 * (`GET /predictions`, newest first) documents only the prediction object's own fields: id, model,
 * version, input, status, created_at, … (Replicate's OpenAPI; its generated clients' `Prediction`).
 * No webhook URL is among them, so the task is found by what it sent:
 *  - the model (`owner/name`, or the pinned version),
 *  - a creation time from a little before the submission on,
 *  - the input, computed again from the job: every field sent must be there with the same value.
 *    Signed input URLs are compared without their query (the signature and expiry are made anew
 *    each time; the path names the stored input, which is this task's own). When the request has
 *    no seed, the input carries one derived from the task id (inputs.ts), so even a prompt alone
 *    is this task's. With a seed of the caller's and no input image, another request identical in
 *    every field could match: it would have made the same image from the same seed.
 * Nothing found means nothing was created, and the task submits.
 */

import type { ProviderContext } from "../adapter";
import { type ImageCapability, isCapability, type JobFor } from "../jobs";
import type { ProviderHandle, ProviderJob } from "../types";
import { predictionInput } from "./inputs";
import { listPredictions, type Prediction, parseModelRef } from "./predictions";

/** Clocks differ: look a little before `since`. Extra predictions are harmless, the match is exact. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** 100 predictions a page; ten pages is far more than a crash window can hold. */
const MAX_PAGES = 10;

/** A URL without its query and fragment; anything else as it is. */
function withoutQuery(value: string): string {
  if (!/^https?:\/\//i.test(value)) return value;
  try {
    const url = new URL(value);
    return `${url.origin}${url.pathname}`;
  } catch {
    return value;
  }
}

/** Whether a value Replicate echoes is the one sent: URLs by origin and path, arrays item by item. */
function same(theirs: unknown, ours: unknown): boolean {
  if (typeof ours === "string") return typeof theirs === "string" && withoutQuery(theirs) === withoutQuery(ours);
  if (Array.isArray(ours)) {
    return Array.isArray(theirs) && theirs.length === ours.length && ours.every((v, i) => same(theirs[i], v));
  }
  return theirs === ours;
}

/** Every field this task sends is in the prediction's input with the same value (Replicate may add defaults). */
export function sameInput(theirs: unknown, ours: Record<string, unknown>): boolean {
  if (!theirs || typeof theirs !== "object" || Array.isArray(theirs)) return false;
  const input = theirs as Record<string, unknown>;
  return Object.entries(ours).every(([k, v]) => same(input[k], v));
}

function sameModel(p: Prediction, model: string): boolean {
  const ref = parseModelRef(model);
  if (ref.version) return p.version === ref.version;
  return p.model === `${ref.owner}/${ref.name}`;
}

function createdAt(p: Prediction): number {
  const t = typeof p.created_at === "string" ? Date.parse(p.created_at) : Number.NaN;
  return Number.isFinite(t) ? t : Number.POSITIVE_INFINITY;
}

export async function findSubmittedPrediction(
  job: ProviderJob,
  ctx: ProviderContext,
  since: number,
): Promise<ProviderHandle | null> {
  if (!isCapability(job, "text_to_image", "image_to_image", "image_edit")) return null;
  const ours = await predictionInput(job as JobFor<ImageCapability>, ctx);
  const from = since - CLOCK_SKEW_MS;
  let path: string | null = `/predictions?created_after=${encodeURIComponent(new Date(from).toISOString())}`;
  for (let page = 0; path !== null && page < MAX_PAGES; page++) {
    const { results, next } = await listPredictions(ctx.config, path);
    const match = results.find((p) => createdAt(p) >= from && sameModel(p, job.upstream_model) && sameInput(p.input, ours));
    if (match) {
      const created = createdAt(match);
      return {
        job_id: match.id,
        submitted_at: Number.isFinite(created) ? created : ctx.now,
        data: { model: job.upstream_model },
      };
    }
    // Newest first: a page that already reaches before the window ends the search, filter or not.
    if (results.some((p) => createdAt(p) < from)) break;
    path = next;
  }
  return null;
}
