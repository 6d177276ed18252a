/** OpenAI's synchronous answers kept in R2 the moment they arrive (the rule: src/providers/staging.ts). */

import type { ProviderContext } from "../adapter";
import { findStagedAnswer, readStagedAnswer, type StagedVerdict, stageAnswer } from "../staging";
import type { ProviderHandle, ProviderJob } from "../types";
import type { Answer } from "./client";

export function stage(
  ctx: ProviderContext,
  job: ProviderJob,
  answer: Answer,
  contentType: string,
  verdict?: StagedVerdict,
): Promise<ProviderHandle> {
  return stageAnswer(ctx, job, answer.bytes, { jobId: answer.requestId, contentType, ...(verdict ? { verdict } : {}) });
}

export const findStaged = (ctx: ProviderContext, job: ProviderJob, since = 0) => findStagedAnswer(ctx, job, since);
export const readStaged = readStagedAnswer;
