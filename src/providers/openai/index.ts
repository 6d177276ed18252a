/**
 * The OpenAI media adapter: GPT Image generations and edits, speech, image understanding and the
 * video prompt enhancer (both through chat completions). Every one of these calls is synchronous, so `submit` makes
 * the call and stages the answer in R2 (see staging.ts for the crash rule), `poll` has nothing to
 * wait for, `fetchResult` reads the staged answer, and there is nothing left to cancel.
 * Chat completions for the chat endpoint are served elsewhere; `chat: true` only says OpenAI answers them.
 */

import type { ProviderAdapter } from "../adapter";
import { isCapability } from "../jobs";
import { stagedBeforeCall, stagedPoll } from "../staging";
import type { ProviderJob } from "../types";
import { ProviderError } from "../types";
import { type Answer, OPENAI_BASE_URL, verifyKey } from "./client";
import { chatAnswerResult, enhanceResult, enhanceVerdict, submitEnhance } from "./enhance";
import { imageResult, submitImages } from "./images";
import { speechResult, submitSpeech } from "./speech";
import { findStaged, readStaged, stage } from "./staging";
import { submitUnderstanding } from "./understanding";

function unsupported(job: ProviderJob): ProviderError {
  return new ProviderError("model_unavailable", `openai does not serve ${job.capability} here.`);
}

export const openaiAdapter: ProviderAdapter = {
  name: "openai",
  defaultBaseUrl: OPENAI_BASE_URL,
  verifyKey,
  capabilities: ["text_to_image", "image_to_image", "image_edit", "image_to_text", "text_to_speech", "video_prompt_enhance"],
  chat: true,

  async submit(job, ctx) {
    // A crash after the answer was staged but before the handle was kept: reuse it, never pay again.
    const found = await stagedBeforeCall(ctx, job);
    if (found) return found;
    let answer: Answer;
    if (isCapability(job, "text_to_image", "image_to_image", "image_edit")) {
      answer = await submitImages(job, ctx);
      return stage(ctx, job, answer, "application/json");
    }
    if (isCapability(job, "text_to_speech")) {
      answer = await submitSpeech(job, ctx);
      return stage(ctx, job, answer, answer.contentType);
    }
    if (isCapability(job, "video_prompt_enhance")) {
      answer = await submitEnhance(job, ctx);
      return stage(ctx, job, answer, "application/json", enhanceVerdict(answer.bytes) ?? undefined);
    }
    if (isCapability(job, "image_to_text")) {
      answer = await submitUnderstanding(job, ctx);
      return stage(ctx, job, answer, "application/json", enhanceVerdict(answer.bytes) ?? undefined);
    }
    throw unsupported(job);
  },

  async poll(handle) {
    return stagedPoll(handle, "openai");
  },

  async fetchResult(handle, job, ctx) {
    const { bytes } = await readStaged(ctx, handle);
    if (isCapability(job, "text_to_image", "image_to_image", "image_edit")) return imageResult(bytes);
    if (isCapability(job, "text_to_speech")) return speechResult(bytes, job);
    if (isCapability(job, "video_prompt_enhance")) return enhanceResult(bytes, job);
    if (isCapability(job, "image_to_text")) return chatAnswerResult(bytes, job.upstream_model, { detail: job.request.detail });
    throw unsupported(job);
  },

  async cancel() {
    // The synchronous call has finished by the time a handle exists.
    return "not_cancelable";
  },

  async reconcile(job, ctx, since) {
    return findStaged(ctx, job, since);
  },
};
