/**
 * Seedream answers kept in R2 the moment they arrive (the rule: src/providers/staging.ts). The
 * output URLs inside expire after 24 hours; the service copies them at fetchResult.
 */

import type { ProviderContext } from "../adapter";
import { findStagedAnswer, readStagedAnswer, type StagedVerdict, stageAnswer } from "../staging";
import type { ProviderHandle, ProviderJob } from "../types";

export type Verdict = StagedVerdict;

/** Ark's handles are Seedance tasks or kept Seedream answers. */
const KIND = { kind: "images" };

export function stage(
  ctx: ProviderContext,
  job: ProviderJob,
  bytes: Uint8Array,
  jobId: string,
  verdict?: Verdict,
): Promise<ProviderHandle> {
  return stageAnswer(ctx, job, bytes, { ...KIND, jobId, ...(verdict ? { verdict } : {}) });
}

export const findStaged = (ctx: ProviderContext, job: ProviderJob, since = 0) => findStagedAnswer(ctx, job, since, KIND);

export async function readStaged(ctx: ProviderContext, handle: ProviderHandle): Promise<Uint8Array> {
  return (await readStagedAnswer(ctx, handle)).bytes;
}
