/**
 * Luma Ray 3.2 through Luma's Agents API (`https://agents.lumalabs.ai/v1`). Ray 3.2 is served there
 * and not on the older Dream Machine API (`api.lumalabs.ai/dream-machine/v1`), whose SDK lists
 * ray-2 era models only; see generations.ts for the wire format and status.ts for the states.
 * Polling only: Luma's callbacks are unsigned, so none are requested. No cancel: the API has no
 * endpoint that stops a generation. No reconcile: it has no listing that could find ours.
 */

import type { ProviderAdapter } from "../adapter";
import { isCapability, type VideoCapability } from "../jobs";
import type { ProviderHandle, ProviderResult } from "../types";
import { ProviderError } from "../types";
import { LUMA_BASE_URL, verifyKey } from "./client";
import { createGeneration, generationBody, readGeneration, videoUrl } from "./generations";
import { failureOf, pollResult } from "./status";

const VIDEO: VideoCapability[] = ["text_to_video", "image_to_video", "frames_to_video", "video_extend"];

function videoJob(job: Parameters<ProviderAdapter["submit"]>[0]) {
  if (!isCapability(job, ...VIDEO)) throw new ProviderError("unsupported_capability", `luma: ${job.capability} is not served.`);
  return job;
}

export const lumaAdapter: ProviderAdapter = {
  name: "luma",
  verifyKey,
  defaultBaseUrl: LUMA_BASE_URL,
  capabilities: VIDEO,

  async submit(job, ctx): Promise<ProviderHandle> {
    const body = await generationBody(videoJob(job), ctx);
    const g = await createGeneration(ctx.config, body);
    return { job_id: g.id, submitted_at: ctx.now };
  },

  async poll(handle, _job, ctx) {
    const g = await readGeneration(ctx.config, handle.job_id);
    return pollResult(ctx.config, g, ctx.now, handle.submitted_at);
  },

  async fetchResult(handle, job, ctx): Promise<ProviderResult> {
    // A fresh read: the presigned URLs last an hour, and each read mints new ones.
    const g = await readGeneration(ctx.config, handle.job_id);
    if (g.state === "failed") {
      const f = failureOf(ctx.config, g);
      throw new ProviderError(f.code, f.message);
    }
    const url = videoUrl(g);
    if (g.state !== "completed" || !url)
      throw new ProviderError("model_output_invalid", `${ctx.config.name}: the generation holds no video (state ${g.state}).`, {
        retryable: true,
      });
    return {
      outputs: [{ kind: "video", url, content_type: "video/mp4", index: 0 }],
      // Seconds are measured from the stored video; an extension is billed on its 5 new ones.
      usage: job.capability === "video_extend" ? { generated_video_seconds: 5 } : {},
      metadata: { provider: "luma", generation_id: g.id },
    };
  },

  async cancel() {
    return "not_cancelable";
  },
};
