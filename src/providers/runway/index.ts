/**
 * Runway's developer API (api.dev.runwayml.com): image-to-video tasks polled through
 * `GET /v1/tasks/{id}`.
 *  - Polling only: Runway offers no webhooks (runwayml/sdk-node#103).
 *  - The output URLs of a SUCCEEDED task expire (24–48 h) and reading the task again issues fresh
 *    ones, so `fetchResult` always reads the task again rather than reusing URLs seen earlier.
 *  - Cancel reads the task first and leaves a finished one alone: the same DELETE that cancels a
 *    PENDING, THROTTLED or RUNNING task deletes a finished one, result and all.
 *  - No `reconcile`: Runway cannot list tasks or carry a tag of ours, so a submission lost in a
 *    crash is submitted again on the same route (docs/providers.md).
 */

import type { ProviderAdapter } from "../adapter";
import { isCapability } from "../jobs";
import { paceOf } from "../pace";
import type { ProviderOutput } from "../types";
import { ProviderError } from "../types";
import { RUNWAY_BASE_URL, verifyKey } from "./client";
import { runwayBody } from "./inputs";
import { codeForFailure, failureMessage, machineWord, outputUrls, pollResultOf, STATUS } from "./status";
import { deleteTask, readTask, submitTask } from "./tasks";

const ENDPOINT = "/v1/image_to_video";

function gone(name: string): ProviderError {
  // Runway answers 404 for tasks it no longer holds; deleted tasks cannot be read again.
  return new ProviderError("model_request_failed", `${name} no longer knows the task (deleted or expired).`, {
    retryable: false,
  });
}

export const runwayAdapter: ProviderAdapter = {
  name: "runway",
  defaultBaseUrl: RUNWAY_BASE_URL,
  verifyKey,
  capabilities: ["image_to_video"],

  async submit(job, ctx) {
    if (!isCapability(job, "image_to_video")) {
      throw new ProviderError("unsupported_capability", `runway: ${job.capability} is not served by this adapter.`, {
        accepted: "no",
      });
    }
    return submitTask(ctx.config, ENDPOINT, await runwayBody(job, ctx), ctx.now);
  },

  async poll(handle, _job, ctx) {
    const task = await readTask(ctx.config, handle);
    if (task === null) {
      return { state: "failed", error: { code: "model_request_failed", message: gone(ctx.config.name).message } };
    }
    return pollResultOf(ctx.config, task, Math.max(0, ctx.now - handle.submitted_at), paceOf(ctx.env));
  },

  async fetchResult(handle, _job, ctx) {
    // A fresh read: the URLs it carries are newly signed.
    const task = await readTask(ctx.config, handle);
    if (task === null) throw gone(ctx.config.name);
    if (task.status === STATUS.failed) {
      const code = codeForFailure(machineWord(task.failureCode));
      throw new ProviderError(code, failureMessage(ctx.config, task), { retryable: false });
    }
    if (task.status !== STATUS.succeeded) {
      throw new ProviderError("model_request_failed", `${ctx.config.name} has no result for the task yet.`, {
        retryable: true,
      });
    }
    // The card promises one video; Gen-4 Turbo makes one per task.
    const [url] = outputUrls(ctx.config, task);
    const outputs: ProviderOutput[] = [{ kind: "video", content_type: "video/mp4", url: url as string, index: 0 }];
    return { outputs, usage: {}, metadata: { task_id: handle.job_id } };
  },

  // DELETE aborts a pending or running task before Runway answers.
  cancelStops: "answer",

  async cancel(handle, _job, ctx) {
    const task = await readTask(ctx.config, handle);
    if (task === null) return "not_cancelable";
    // Only finished tasks are left alone; an unlisted status may still be running, so it is cancelled.
    const status = task.status;
    if (status === STATUS.succeeded || status === STATUS.failed || status === STATUS.cancelled) return "not_cancelable";
    return (await deleteTask(ctx.config, handle)) === "deleted" ? "canceled" : "not_cancelable";
  },
};
