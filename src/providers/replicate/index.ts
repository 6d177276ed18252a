/**
 * The Replicate adapter: predictions on official models (black-forest-labs/flux-2-pro for now),
 * polled by id, canceled on request, found again after a crash by their model, creation time and
 * input in the list of predictions (reconcile.ts), and woken by Replicate's signed "completed"
 * webhook where the deployment has a public address.
 */

import type { ProviderAdapter } from "../adapter";
import { isCapability } from "../jobs";
import { ProviderError } from "../types";
import { REPLICATE_BASE_URL, verifyKey } from "./client";
import { predictionInput } from "./inputs";
import { resultOf } from "./outputs";
import { type CreateBody, cancelPrediction, createPrediction, getPrediction } from "./predictions";
import { findSubmittedPrediction } from "./reconcile";
import { pollResult } from "./status";
import { verifyReplicateWebhook } from "./webhook";

export const replicateAdapter: ProviderAdapter = {
  name: "replicate",
  defaultBaseUrl: REPLICATE_BASE_URL,
  verifyKey,
  capabilities: ["text_to_image", "image_to_image", "image_edit"],

  async submit(job, ctx) {
    if (!isCapability(job, "text_to_image", "image_to_image", "image_edit")) {
      throw new ProviderError("unsupported_capability", `replicate: ${job.capability} is not served by this adapter.`, {
        accepted: "no",
      });
    }
    const body: CreateBody = { input: await predictionInput(job, ctx) };
    // Only the final event: it is the one Replicate retries, and the only one that changes anything here.
    if (ctx.webhookUrl) Object.assign(body, { webhook: ctx.webhookUrl, webhook_events_filter: ["completed"] });
    const prediction = await createPrediction(ctx.config, job.upstream_model, body);
    return { job_id: prediction.id, submitted_at: ctx.now, data: { model: job.upstream_model } };
  },

  async poll(handle, _job, ctx) {
    return pollResult(ctx.config, await getPrediction(ctx.config, handle.job_id), ctx.now, handle.submitted_at);
  },

  async fetchResult(handle, _job, ctx) {
    return resultOf(await getPrediction(ctx.config, handle.job_id), ctx.config);
  },

  async cancel(handle, _job, ctx) {
    return cancelPrediction(ctx.config, handle.job_id);
  },

  reconcile: findSubmittedPrediction,

  verifyWebhook: verifyReplicateWebhook,
};
