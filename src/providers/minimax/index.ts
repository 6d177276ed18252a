/**
 * MiniMax (platform.minimax.io; host `https://api.minimax.io`, mainland China `https://api.minimaxi.com`
 * through PROVIDER_MINIMAX_BASE_URL: keys work only on their own region's host).
 *  - Speech (T2A v2) and music: one synchronous call each whose answer is kept in R2 at once
 *    (sync.ts, speech.ts, music.ts); nothing to poll or cancel; `reconcile` finds the kept answer.
 *  - Hailuo video (v1): an asynchronous task (video.ts), polled by id, then its file retrieved.
 *    MiniMax has no cancel endpoint and no way to list or tag tasks, so `reconcile` has nothing to
 *    find for video (the rule for upstreams without tags applies).
 * Errors arrive as HTTP 200 with a non-zero `base_resp.status_code` (client.ts).
 * MiniMax's `callback_url` is not signed (it first POSTs a `{challenge}` to echo, then the status):
 * nothing could tell a forged call from a real one, so no callback is requested and there is no
 * `verifyWebhook`; polling alone decides.
 */

import type { ProviderAdapter } from "../adapter";
import { isCapability, type ProviderJob } from "../jobs";
import type { ProviderHandle } from "../types";
import { ProviderError } from "../types";
import { verifyKey } from "./client";
import { musicResult, submitMusic } from "./music";
import { speechResult, submitSpeech } from "./speech";
import { findStaged } from "./sync";
import { createVideo, pollVideo, queryVideo, videoBody, videoResult } from "./video";

export const MINIMAX_BASE_URL = "https://api.minimax.io";
const VIDEO = ["text_to_video", "image_to_video", "frames_to_video"] as const;

const kindOf = (handle: ProviderHandle) => handle.data?.kind ?? "video";

function unsupported(job: ProviderJob): ProviderError {
  return new ProviderError("unsupported_capability", `minimax: ${job.capability} is not served by the MiniMax adapter.`, {
    accepted: "no",
  });
}

export const minimaxAdapter: ProviderAdapter = {
  name: "minimax",
  verifyKey,
  defaultBaseUrl: MINIMAX_BASE_URL,
  capabilities: [...VIDEO, "text_to_music", "text_to_speech"],

  async submit(job, ctx) {
    if (isCapability(job, "text_to_speech")) return submitSpeech(job, ctx);
    if (isCapability(job, "text_to_music")) return submitMusic(job, ctx);
    if (isCapability(job, ...VIDEO)) {
      const id = await createVideo(ctx.config, await videoBody(job, ctx));
      return { job_id: id, submitted_at: ctx.now, data: { kind: "video" } };
    }
    throw unsupported(job);
  },

  async poll(handle, _job, ctx) {
    // A kept synchronous answer is the result; refusals were thrown at submit.
    if (kindOf(handle) !== "video") return { state: "succeeded" };
    return pollVideo(ctx.config, await queryVideo(ctx.config, handle.job_id), ctx.now, handle.submitted_at);
  },

  async fetchResult(handle, job, ctx) {
    if (isCapability(job, "text_to_speech")) return speechResult(job, handle, ctx);
    if (isCapability(job, "text_to_music")) return musicResult(job, handle, ctx);
    return videoResult(ctx.config, handle.job_id);
  },

  async cancel() {
    // Synchronous calls have finished by the time a handle exists; MiniMax cannot cancel a video task.
    return "not_cancelable";
  },

  async reconcile(job, ctx, since) {
    if (isCapability(job, "text_to_speech")) return findStaged(ctx, job, "speech", since);
    if (isCapability(job, "text_to_music")) return findStaged(ctx, job, "music", since);
    return null;
  },
};
