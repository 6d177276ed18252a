/**
 * ByteDance Ark: one protocol on two platforms, BytePlus ModelArk (international) and Volcengine
 * Ark (mainland China), each with its own host, keys and model ids, so one adapter is registered
 * twice under the platform's name.
 *  - Seedance video: an asynchronous content generation task (tasks.ts), polled by id (status.ts),
 *    cancelled only while queued.
 *  - Seedream images: one synchronous call whose answer is kept in R2 at once (images.ts,
 *    staging.ts); there is nothing to poll or cancel.
 *
 * `reconcile` finds a kept image answer by the task's id. A video task cannot be found reliably
 * after a crash between its creation and the write of its id: the task object echoes nothing of
 * ours but `safety_identifier` (which identifies an end user for abuse review, not a job), the
 * list filters only by status, model and task id, and `callback_url` is not returned. Matching by
 * model and time could adopt another task's video, so the answer there is null and the rule for
 * upstreams without tags applies (submit again on the same route; the tenant is charged once).
 * Ark's callbacks are not signed, so no `callback_url` is sent and no webhook is verified: polling
 * alone decides.
 */

import type { ProviderAdapter } from "../adapter";
import { isCapability, type ProviderJob } from "../jobs";
import { stagedPoll } from "../staging";
import type { ProviderHandle } from "../types";
import { ProviderError } from "../types";
import { verifyKey } from "./client";
import { imageResult, submitImages } from "./images";
import { findStaged, readStaged } from "./staging";
import { pollResult } from "./status";
import { cancelTask, createTask, getTask, taskBody, taskResult } from "./tasks";

export const BYTEPLUS_BASE_URL = "https://ark.ap-southeast.bytepluses.com/api/v3";
export const VOLCENGINE_BASE_URL = "https://ark.cn-beijing.volces.com/api/v3";

const IMAGE = ["text_to_image", "image_to_image", "image_edit"] as const;
const VIDEO = ["text_to_video", "image_to_video", "reference_to_video", "frames_to_video", "video_extend"] as const;

const isImageHandle = (handle: ProviderHandle) => handle.data?.kind === "images";

function unsupported(name: string, job: ProviderJob): ProviderError {
  return new ProviderError("unsupported_capability", `${name}: ${job.capability} is not served by the Ark adapter.`, {
    accepted: "no",
  });
}

export function arkAdapter(name: string, defaultBaseUrl: string): ProviderAdapter {
  return {
    name,
    defaultBaseUrl,
    verifyKey,
    capabilities: [...IMAGE, ...VIDEO],

    async submit(job, ctx) {
      if (isCapability(job, ...IMAGE)) return submitImages(job, ctx);
      if (isCapability(job, ...VIDEO)) {
        const id = await createTask(ctx.config, await taskBody(job, ctx));
        return { job_id: id, submitted_at: ctx.now, data: { kind: "task" } };
      }
      throw unsupported(name, job);
    },

    async poll(handle, _job, ctx) {
      if (isImageHandle(handle)) {
        return stagedPoll(handle, name);
      }
      const task = await getTask(ctx.config, handle.job_id);
      if (!task) {
        return {
          state: "failed",
          error: {
            code: "model_request_failed",
            message: `${name}: task ${handle.job_id.slice(0, 80)} no longer exists upstream.`,
          },
        };
      }
      return pollResult(ctx.config, task, ctx.now, handle.submitted_at);
    },

    async fetchResult(handle, _job, ctx) {
      if (isImageHandle(handle)) return imageResult(ctx.config, await readStaged(ctx, handle));
      const task = await getTask(ctx.config, handle.job_id);
      if (!task) throw new ProviderError("model_output_invalid", `${name}: the task no longer exists upstream.`);
      return taskResult(ctx.config, task);
    },

    // Only a queued task is canceled (cancelTask): it never starts.
    cancelStops: "answer",

    async cancel(handle, _job, ctx) {
      // A synchronous image call has finished by the time a handle exists.
      if (isImageHandle(handle)) return "not_cancelable";
      return cancelTask(ctx.config, handle.job_id);
    },

    async reconcile(job, ctx, since) {
      return isCapability(job, ...IMAGE) ? findStaged(ctx, job, since) : null;
    },
  };
}
