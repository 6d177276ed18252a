/**
 * The Google adapter: the Gemini API (generativelanguage.googleapis.com, `x-goog-api-key`).
 *
 * - Images (Gemini image models) and understanding (image_to_text, video_to_text) are one
 *   synchronous generateContent each: `submit` makes the call and stages the answer in R2 with any
 *   verdict it carries (staging.ts), `poll` reports that verdict or success, `fetchResult` decodes
 *   the staged answer (content.ts). Nothing is left to cancel.
 * - Video is a long-running operation (`predictLongRunning`): the operation's name is the job id,
 *   polled until done, its video downloaded by the service with the key (video.ts). Model
 *   operations have no documented cancel, so cancel answers not_cancelable.
 * - Chat (`googleChat`) translates the OpenAI wire format to generateContent and back (chat.ts).
 */

import type { ProviderAdapter } from "../adapter";
import { isCapability } from "../jobs";
import { stagedBeforeCall, stagedPoll } from "../staging";
import type { ProviderHandle, ProviderJob } from "../types";
import { ProviderError } from "../types";
import { GOOGLE_BASE_URL, verifyKey } from "./client";
import { imageResult, submitContent, understandingResult, verdictOf } from "./content";
import { findStaged, readStaged, stage } from "./staging";
import { pollVideo, submitVideo, videoResult } from "./video";

export { googleChat } from "./chat";

const IMAGE_CAPS = ["text_to_image", "image_to_image", "image_edit"] as const;
const UNDERSTANDING_CAPS = ["image_to_text", "video_to_text"] as const;
const VIDEO_CAPS = ["text_to_video", "image_to_video", "reference_to_video", "frames_to_video", "video_extend"] as const;

const isOperation = (handle: ProviderHandle) => handle.data?.kind === "operation";

function unsupported(job: ProviderJob): ProviderError {
  return new ProviderError("unsupported_capability", `google does not serve ${job.capability} here.`);
}

export const googleAdapter: ProviderAdapter = {
  name: "google",
  defaultBaseUrl: GOOGLE_BASE_URL,
  verifyKey,
  capabilities: [...IMAGE_CAPS, ...UNDERSTANDING_CAPS, ...VIDEO_CAPS],
  chat: true,

  async submit(job, ctx) {
    if (isCapability(job, ...VIDEO_CAPS)) return submitVideo(job, ctx);
    if (!isCapability(job, ...IMAGE_CAPS, ...UNDERSTANDING_CAPS)) throw unsupported(job);
    // A crash after the answer was staged but before the handle was kept: reuse it, never pay again.
    const found = await stagedBeforeCall(ctx, job, { kind: "staged" });
    if (found) return found;
    const answer = await submitContent(job, ctx);
    const image = isCapability(job, ...IMAGE_CAPS);
    return stage(ctx, job, answer, verdictOf(answer.bytes, image) ?? undefined);
  },

  async poll(handle, _job, ctx) {
    if (isOperation(handle)) return pollVideo(handle, ctx);
    return stagedPoll(handle, "google");
  },

  async fetchResult(handle, job, ctx) {
    if (isOperation(handle)) {
      if (!isCapability(job, ...VIDEO_CAPS)) throw unsupported(job);
      return videoResult(handle, job, ctx);
    }
    const bytes = await readStaged(ctx, handle);
    if (isCapability(job, ...IMAGE_CAPS)) return imageResult(bytes, job);
    if (isCapability(job, ...UNDERSTANDING_CAPS)) return understandingResult(bytes, job);
    throw unsupported(job);
  },

  async cancel() {
    // generateContent has finished by the time a handle exists; model operations cannot be canceled.
    return "not_cancelable";
  },

  async reconcile(job, ctx, since) {
    // Only synchronous answers are staged under the task; an operation has no tag to find it by,
    // so a video submission interrupted before its name was kept is submitted again.
    if (isCapability(job, ...VIDEO_CAPS)) return null;
    return findStaged(ctx, job, since);
  },
};
