/**
 * fal through its queue: submit once (with `fal_webhook` where the deployment can be called
 * back), read the status until the request ends, then read the result. COMPLETED only says the
 * request ended: the result answer says whether it succeeded, so the poll reads it before
 * reporting success and reports a refusal, a flagged output or an error answer as a failure.
 * There is no `reconcile`: a fal input has no field for a tag of ours, so a lost submission could
 * only be found in fal's request history (Platform API `GET /v1/models/requests/by-endpoint`) by
 * matching prompts, which could adopt another task's job. Instead a lost submission made with
 * `fal_webhook` is `adopt`ed when fal's signed webhook for it arrives at the task's own URL.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderAdapter } from "../adapter";
import type { ProviderConfig } from "../config";
import { readJson } from "../http";
import { paceOf } from "../pace";
import { type PollResult, ProviderError, type ProviderHandle, type ProviderJob } from "../types";
import { codeForErrorType, FAL_QUEUE_URL, verifyKey } from "./client";
import { falEndpoint, falInput } from "./inputs";
import { contentFiltered, nsfwFlagged, resultOf } from "./outputs";
import { cancelRequest, readResult, readStatus, submitRequest } from "./queue";
import { readStatusAnswer } from "./status";
import { verifyFalWebhook } from "./webhook";

const VIDEO = new Set(["text_to_video", "image_to_video", "frames_to_video", "video_extend"]);

/** Typical run times, for progress that moves while fal reports none. */
function typicalMs(job: ProviderJob): number {
  return VIDEO.has(job.capability) ? 120_000 : 20_000;
}

function failed(code: ErrorCode, message: string): PollResult {
  return { state: "failed", error: { code, message } };
}

/** The end of a request fal reports as COMPLETED (or FAILED): its result answer decides. */
async function settle(
  config: ProviderConfig,
  handle: ProviderHandle,
  said: { failed: boolean; error?: string; errorType?: string },
): Promise<PollResult> {
  let res: Response;
  try {
    res = await readResult(config, handle);
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    // No answer, or throttled: read again later. Any other error answer is how the request ended.
    if (e.upstreamStatus === undefined || e.upstreamStatus === 429) throw e;
    return failed(e.code, e.message);
  }
  const body = await readJson<unknown>(config, res).catch(() => undefined);
  if (body !== undefined && nsfwFlagged(body)) return failed("content_filtered", contentFiltered(config).message);
  if (said.failed) {
    const known = codeForErrorType(said.errorType);
    const why = said.error ?? said.errorType ?? "the request failed";
    return failed(known?.code ?? "model_request_failed", `${config.name} reports the request failed: ${why}`);
  }
  // Whether the outputs are there and readable is fetchResult's to say (it is retried).
  return { state: "succeeded" };
}

export const falAdapter: ProviderAdapter = {
  name: "fal",
  defaultBaseUrl: FAL_QUEUE_URL,
  verifyKey,
  capabilities: [
    "text_to_image",
    "image_to_image",
    "image_edit",
    "text_to_video",
    "image_to_video",
    "frames_to_video",
    "video_extend",
  ],

  async submit(job, ctx) {
    const { endpoint, input } = await falInput(job, ctx);
    return submitRequest(ctx.config, endpoint, input, ctx.webhookUrl, ctx.now);
  },

  async poll(handle, job, ctx) {
    const status = await readStatus(ctx.config, handle);
    const reading = readStatusAnswer(status, {
      elapsedMs: Math.max(0, ctx.now - handle.submitted_at),
      typicalMs: typicalMs(job),
      secrets: [ctx.config.apiKey],
      pace: paceOf(ctx.env),
    });
    if (reading.next === "wait") return reading.result;
    if (reading.next === "canceled") return failed("model_request_failed", `${ctx.config.name} canceled the request.`);
    return settle(ctx.config, handle, reading);
  },

  async fetchResult(handle, job, ctx) {
    const res = await readResult(ctx.config, handle);
    return resultOf(ctx.config, job, await readJson<unknown>(ctx.config, res), handle.job_id);
  },

  cancel(handle, _job, ctx) {
    return cancelRequest(ctx.config, handle);
  },

  verifyWebhook: verifyFalWebhook,

  // Follow-ups need only the request id and the app it was queued on (queue.ts urlsOf).
  adopt(jobId, job, _ctx, submittedAt) {
    return { job_id: jobId, submitted_at: submittedAt, data: { endpoint: falEndpoint(job) } };
  },
};
