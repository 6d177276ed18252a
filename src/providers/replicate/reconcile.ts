/**
 * After a crash between creating a prediction and saving its id: find the prediction this task
 * created. A prediction carries no free-form metadata, so the one mark this service can put on it
 * is its webhook URL, which names the task (`…/webhooks/providers/replicate/<task_id>`).
 *
 * The rule: list the predictions created since the submission (newest first, following the cursor)
 * and take the one whose `webhook` is this task's webhook URL. A deployment without a webhook URL
 * (no public address) leaves nothing to match by: the answer is null, as for an upstream that
 * cannot tag its jobs, and the task object applies that rule.
 */
import type { ProviderContext, ProviderHandle, ProviderJob } from "../types";
import { listPredictions, type Prediction } from "./predictions";

/** Clocks differ: look a little before `since`. Extra predictions are harmless, the match is exact. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** 100 predictions a page; ten pages is far more than a crash window can hold. */
const MAX_PAGES = 10;

function sameWebhook(theirs: unknown, ours: string): boolean {
  if (typeof theirs !== "string" || theirs.length === 0) return false;
  if (theirs === ours) return true;
  try {
    const a = new URL(theirs);
    const b = new URL(ours);
    return a.origin === b.origin && a.pathname.replace(/\/+$/, "") === b.pathname.replace(/\/+$/, "");
  } catch {
    return false;
  }
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
  const ours = ctx.webhookUrl;
  if (!ours) return null;
  const from = since - CLOCK_SKEW_MS;
  let path: string | null = `/predictions?created_after=${encodeURIComponent(new Date(from).toISOString())}`;
  for (let page = 0; path !== null && page < MAX_PAGES; page++) {
    const { results, next } = await listPredictions(ctx.config, path);
    const match = results.find((p) => sameWebhook(p.webhook, ours));
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
