/**
 * Alibaba Cloud Model Studio (DashScope): Wan video as asynchronous tasks (tasks.ts), polled by id
 * (status.ts), cancelled while PENDING. The international host is the default; a regional host
 * (Beijing, Virginia, a workspace domain) is set with PROVIDER_DASHSCOPE_BASE_URL.
 *
 * No `reconcile`: a task echoes nothing of ours that could tell two jobs apart (the task list filters
 * by time, model and status only), so after a crash between the creation and the write of its id
 * the rule for upstreams without tags applies. No callbacks are requested: polling alone decides.
 */

import type { ProviderAdapter } from "../adapter";
import { isCapability } from "../jobs";
import { ProviderError } from "../types";
import { pollResult } from "./status";
import { cancelTask, createTask, getTask, taskBody, taskResult } from "./tasks";

export const DASHSCOPE_BASE_URL = "https://dashscope-intl.aliyuncs.com/api/v1";

const VIDEO = ["text_to_video", "image_to_video", "reference_to_video", "frames_to_video", "video_extend"] as const;

export const dashscopeAdapter: ProviderAdapter = {
  name: "dashscope",
  defaultBaseUrl: DASHSCOPE_BASE_URL,
  capabilities: VIDEO,

  async submit(job, ctx) {
    if (!isCapability(job, ...VIDEO)) {
      throw new ProviderError("unsupported_capability", `dashscope: ${job.capability} is not served.`, { accepted: "no" });
    }
    const id = await createTask(ctx.config, await taskBody(job, ctx));
    return { job_id: id, submitted_at: ctx.now };
  },

  async poll(handle, _job, ctx) {
    return pollResult(ctx.config, await getTask(ctx.config, handle.job_id), ctx.now, handle.submitted_at);
  },

  async fetchResult(handle, _job, ctx) {
    return taskResult(ctx.config, await getTask(ctx.config, handle.job_id));
  },

  // DashScope cancels PENDING tasks only (cancelTask): a canceled one never starts.
  cancelStops: "answer",

  async cancel(handle, _job, ctx) {
    return cancelTask(ctx.config, handle.job_id);
  },
};
