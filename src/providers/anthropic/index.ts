/**
 * The Anthropic adapter: Claude through the Messages API (`POST /v1/messages`, `x-api-key`,
 * `anthropic-version`). Media: image understanding, a synchronous call whose answer `submit`
 * stages in R2 (staging.ts) so that `poll` has nothing to wait for, `fetchResult` reads the staged
 * answer, and nothing is left to cancel. Chat: completions in the OpenAI wire format, translated
 * to and from Messages (chat.ts).
 */

import type { ProviderAdapter } from "../adapter";
import type { ChatUpstream } from "../chat-upstream";
import type { ProviderConfig } from "../config";
import { isCapability } from "../jobs";
import { stagedBeforeCall, stagedPoll } from "../staging";
import type { ProviderJob } from "../types";
import { ProviderError } from "../types";
import { anthropicChat as chatUpstream } from "./chat";
import { ANTHROPIC_BASE_URL, verifyKey } from "./client";
import { findStaged, readStaged, stage } from "./staging";
import { messageId, submitUnderstanding, understandingResult, understandingVerdict } from "./understanding";

function unsupported(job: ProviderJob): ProviderError {
  return new ProviderError("model_unavailable", `anthropic does not serve ${job.capability} here.`);
}

export const anthropicAdapter: ProviderAdapter = {
  name: "anthropic",
  defaultBaseUrl: ANTHROPIC_BASE_URL,
  verifyKey,
  capabilities: ["image_to_text"],
  chat: true,

  async submit(job, ctx) {
    if (!isCapability(job, "image_to_text")) throw unsupported(job);
    // A crash after the answer was staged but before the handle was kept: reuse it, never pay again.
    const found = await stagedBeforeCall(ctx, job);
    if (found) return found;
    const answer = await submitUnderstanding(job, ctx);
    const verdict = understandingVerdict(answer.bytes) ?? undefined;
    return stage(ctx, job, answer.bytes, messageId(answer.bytes) ?? answer.requestId, verdict);
  },

  async poll(handle) {
    return stagedPoll(handle, "anthropic");
  },

  async fetchResult(handle, job, ctx) {
    if (!isCapability(job, "image_to_text")) throw unsupported(job);
    return understandingResult(await readStaged(ctx, handle), job);
  },

  async cancel() {
    // The synchronous call has finished by the time a handle exists.
    return "not_cancelable";
  },

  async reconcile(job, ctx, since) {
    return findStaged(ctx, job, since);
  },
};

export function anthropicChat(config: ProviderConfig): ChatUpstream {
  return chatUpstream(config);
}
