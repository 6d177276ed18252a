/**
 * Black Forest Labs' own API (api.bfl.ai): submit a task to the model's endpoint, read it through
 * the polling URL BFL returns until it is Ready, then hand the signed image URL (valid ten minutes)
 * to the service to copy at once.
 *  - Polling only. BFL takes `webhook_url` and `webhook_secret`, but its API reference does not say
 *    how the secret authenticates a delivery (one guide page says it is echoed in an
 *    `X-Webhook-Secret` header, another source describes an HMAC signature), so no webhook is
 *    requested and there is no `verifyWebhook`: an unverifiable callback would add nothing.
 *  - No cancel: BFL documents no way to stop a submitted task ("not_cancelable").
 *  - No `reconcile`: BFL cannot list tasks or carry a tag of ours, so a submission lost in a crash
 *    is submitted again on the same route (docs/providers.md).
 */

import type { ProviderAdapter } from "../adapter";
import { isCapability } from "../jobs";
import { paceOf } from "../pace";
import { ProviderError } from "../types";
import { BFL_BASE_URL, verifyKey } from "./client";
import { bflRequest } from "./inputs";
import { resultOf } from "./outputs";
import { pollResultOf } from "./status";
import { readTask, submitTask } from "./tasks";

export const bflAdapter: ProviderAdapter = {
  name: "bfl",
  defaultBaseUrl: BFL_BASE_URL,
  verifyKey,
  capabilities: ["text_to_image", "image_to_image", "image_edit"],

  async submit(job, ctx) {
    if (!isCapability(job, "text_to_image", "image_to_image", "image_edit")) {
      throw new ProviderError("unsupported_capability", `bfl: ${job.capability} is not served by this adapter.`, {
        accepted: "no",
      });
    }
    const { endpoint, body } = await bflRequest(job, ctx);
    return submitTask(ctx.config, endpoint, body, ctx.now);
  },

  async poll(handle, _job, ctx) {
    const elapsed = Math.max(0, ctx.now - handle.submitted_at);
    return pollResultOf(ctx.config, await readTask(ctx.config, handle), elapsed, paceOf(ctx.env));
  },

  async fetchResult(handle, _job, ctx) {
    return resultOf(ctx.config, handle, await readTask(ctx.config, handle));
  },

  async cancel() {
    return "not_cancelable";
  },
};
