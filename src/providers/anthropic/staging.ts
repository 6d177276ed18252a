/** Image understanding answers kept in R2 the moment they arrive (the rule: src/providers/staging.ts). */

import type { ProviderContext } from "../adapter";
import { findStagedAnswer, readStagedAnswer, stageAnswer } from "../staging";
import type { ProviderHandle, ProviderJob } from "../types";

/** A final outcome read from the answer at submit, reported by poll. */
export interface Verdict {
  outcome: "safety_rejected" | "content_filtered" | "model_output_invalid";
  message: string;
}

export function stage(
  ctx: ProviderContext,
  job: ProviderJob,
  bytes: Uint8Array,
  jobId: string | null,
  verdict?: Verdict,
): Promise<ProviderHandle> {
  return stageAnswer(ctx, job, bytes, { jobId, ...(verdict ? { verdict } : {}) });
}

export const findStaged = (ctx: ProviderContext, job: ProviderJob, since = 0) => findStagedAnswer(ctx, job, since);

export async function readStaged(ctx: ProviderContext, handle: ProviderHandle): Promise<Uint8Array> {
  return (await readStagedAnswer(ctx, handle)).bytes;
}
