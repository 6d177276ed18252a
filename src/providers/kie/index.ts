/**
 * Kie (api.kie.ai), a relay for Suno music: submit a generation, read its record until the two
 * tracks are done, hand their audio URLs (kept about 14 days by Kie) to the service to copy at once.
 *  - Callbacks: Kie requires `callBackUrl` but documents no way to authenticate its deliveries
 *    here, so there is no `verifyWebhook`, the context has no webhook URL for it, and the URL
 *    sent is the operator's PROVIDER_KIE_CALLBACK_URL or an inert one (request.ts). Polling decides.
 *  - No cancel: Kie documents none for Suno tasks ("not_cancelable").
 *  - No `reconcile`: Kie cannot list tasks or carry a tag of ours, so a submission lost in a
 *    crash is submitted again on the same route (docs/providers.md).
 */

import type { ProviderAdapter } from "../adapter";
import { isCapability } from "../jobs";
import { paceOf } from "../pace";
import type { ProviderJob } from "../types";
import { ProviderError } from "../types";
import { KIE_BASE_URL, verifyKey } from "./client";
import { sunoBody, TRACKS_PER_CALL } from "./request";
import { pollResultOf, resultOf } from "./status";
import { readRecord, submitTask } from "./tasks";

function tracksOf(job: ProviderJob): number {
  return job.capability === "text_to_music" ? job.request.tracks : TRACKS_PER_CALL;
}

export const kieAdapter: ProviderAdapter = {
  name: "kie",
  defaultBaseUrl: KIE_BASE_URL,
  verifyKey,
  capabilities: ["text_to_music"],

  async submit(job, ctx) {
    if (!isCapability(job, "text_to_music")) {
      throw new ProviderError("unsupported_capability", `kie: ${job.capability} is not served by this adapter.`, {
        accepted: "no",
      });
    }
    return submitTask(ctx.config, sunoBody(job, ctx), ctx.now);
  },

  async poll(handle, job, ctx) {
    const record = await readRecord(ctx.config, handle);
    return pollResultOf(ctx.config, record, tracksOf(job), Math.max(0, ctx.now - handle.submitted_at), paceOf(ctx.env));
  },

  async fetchResult(handle, job, ctx) {
    return resultOf(ctx.config, handle, await readRecord(ctx.config, handle), tracksOf(job));
  },

  async cancel() {
    return "not_cancelable";
  },
};
