/**
 * generateContent answers kept in R2 the moment they arrive (the rule: src/providers/staging.ts).
 * A verdict read from the answer at submit (a blocked prompt, a filtered output) is kept beside
 * it, so that poll can end the task without reading it again.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderContext } from "../adapter";
import { findStagedAnswer, readStagedAnswer, stageAnswer } from "../staging";
import type { ProviderHandle, ProviderJob } from "../types";
import type { Answer } from "./client";

export interface Verdict {
  outcome: Extract<ErrorCode, "safety_rejected" | "content_filtered">;
  message: string;
}

/** Google's handles are operations or staged answers. */
const KIND = { kind: "staged" };

export function stage(ctx: ProviderContext, job: ProviderJob, answer: Answer, verdict?: Verdict): Promise<ProviderHandle> {
  return stageAnswer(ctx, job, answer.bytes, { ...KIND, jobId: answer.requestId, ...(verdict ? { verdict } : {}) });
}

export const findStaged = (ctx: ProviderContext, job: ProviderJob, since = 0) => findStagedAnswer(ctx, job, since, KIND);

export async function readStaged(ctx: ProviderContext, handle: ProviderHandle): Promise<Uint8Array> {
  return (await readStagedAnswer(ctx, handle)).bytes;
}
