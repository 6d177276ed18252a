/**
 * generateContent is synchronous: the answer is the result, paid for the moment it arrives. The
 * task engine runs submit → poll → fetchResult and may crash between any two steps, so `submit`
 * writes the raw answer into R2 before it returns and later steps read it from there (the rule
 * of src/providers/openai/staging.ts: a crash during the call may repeat it once, a crash after
 * staging repeats nothing). A verdict read from the answer at submit (a blocked prompt, a
 * filtered output) is kept beside it, so that poll can end the task without reading it again.
 *
 * Staged answers are not deleted after reading (fetchResult may run again after a later failure);
 * the `staging/` prefix is left to a bucket lifecycle rule.
 */
import type { ErrorCode } from "../../errors/codes";
import type { ProviderContext, ProviderHandle, ProviderJob } from "../types";
import { ProviderError } from "../types";
import type { Answer } from "./client";

/** Other adapters may stage under the same task prefix (a task that moved routes): only Google's answers are ours. */
const PROVIDER = "google";

const prefixOf = (taskId: string) => `staging/${taskId}/`;

export interface Verdict {
  outcome: Extract<ErrorCode, "safety_rejected" | "content_filtered">;
  message: string;
}

function randomId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

function handleOf(key: string, jobId: string, submittedAt: number, verdict?: Verdict): ProviderHandle {
  const data: Record<string, string> = { kind: "staged", staging_key: key };
  if (verdict) {
    data.outcome = verdict.outcome;
    data.outcome_message = verdict.message.slice(0, 500);
  }
  return { job_id: jobId, submitted_at: submittedAt, data };
}

/** Writes the answer; a transient R2 failure is retried, as losing a paid answer is the worst outcome. */
export async function stage(ctx: ProviderContext, job: ProviderJob, answer: Answer, verdict?: Verdict): Promise<ProviderHandle> {
  const key = `${prefixOf(job.task_id)}${randomId()}`;
  const jobId = answer.requestId ?? `gem_${randomId()}`;
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await ctx.env.ARTIFACTS.put(key, answer.bytes, {
        httpMetadata: { contentType: "application/json" },
        customMetadata: {
          provider: PROVIDER,
          job_id: jobId,
          submitted_at: String(ctx.now),
          ...(verdict ? { outcome: verdict.outcome, outcome_message: verdict.message.slice(0, 500) } : {}),
        },
      });
      return handleOf(key, jobId, ctx.now, verdict);
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
  }
  // Google has answered (and billed) but the answer could not be kept: say so rather than pretend it never ran.
  throw new ProviderError(
    "model_request_failed",
    `google answered but the answer could not be stored: ${last instanceof Error ? last.message : String(last)}`,
    { retryable: true, accepted: "unknown" },
  );
}

/** An answer staged for this task since `since` (a crash after staging, before the handle was kept), or null. */
export async function findStaged(ctx: ProviderContext, job: ProviderJob, since = 0): Promise<ProviderHandle | null> {
  const listed = await ctx.env.ARTIFACTS.list({ prefix: prefixOf(job.task_id), include: ["customMetadata"] });
  const found = listed.objects
    .filter((o) => o.customMetadata?.provider === PROVIDER && o.uploaded.getTime() >= since)
    .sort((a, b) => b.uploaded.getTime() - a.uploaded.getTime())[0];
  if (!found) return null;
  const meta = found.customMetadata ?? {};
  const submittedAt = Number(meta.submitted_at);
  const outcome = meta.outcome === "safety_rejected" || meta.outcome === "content_filtered" ? meta.outcome : undefined;
  return handleOf(
    found.key,
    meta.job_id ?? `gem_${found.key.slice(-32)}`,
    Number.isFinite(submittedAt) ? submittedAt : found.uploaded.getTime(),
    outcome ? { outcome, message: meta.outcome_message ?? "" } : undefined,
  );
}

/** The staged answer's bytes; a missing one cannot be recovered (the task then fails with a refund). */
export async function readStaged(ctx: ProviderContext, handle: ProviderHandle): Promise<Uint8Array> {
  const key = handle.data?.staging_key;
  if (!key) throw new ProviderError("model_output_invalid", "google: the task's handle names no staged answer.");
  const object = await ctx.env.ARTIFACTS.get(key);
  if (!object) throw new ProviderError("model_output_invalid", "google: the staged answer is missing from storage.");
  return new Uint8Array(await object.arrayBuffer());
}
