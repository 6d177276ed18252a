/**
 * Seedream's image endpoint is synchronous: the answer is the result, billed the moment it arrives.
 * The task engine runs submit → poll → fetchResult and may crash between any two, so `submit`
 * keeps the raw answer in R2 before it returns, and later steps read it from there.
 *
 * The crash rule: a crash during the call (nothing kept yet) may repeat the call once, as there is
 * no upstream id to look for; the tenant is charged once whatever happens. A crash after the answer
 * is kept repeats nothing: the answer is found under the task's prefix and reused.
 * Kept answers are not deleted after reading (fetchResult may run again); the `staging/` prefix is
 * left to a bucket lifecycle rule. The output URLs inside expire after 24 hours.
 */
import type { ProviderContext, ProviderHandle, ProviderJob } from "../types";
import { ProviderError } from "../types";

export interface Verdict {
  outcome: string;
  message: string;
}

const prefixOf = (taskId: string) => `staging/${taskId}/`;

export function handleOf(key: string, jobId: string, submittedAt: number, verdict?: Verdict): ProviderHandle {
  const data: Record<string, string> = { kind: "images", staging_key: key };
  if (verdict) {
    data.outcome = verdict.outcome;
    data.outcome_message = verdict.message.slice(0, 500);
  }
  return { job_id: jobId, submitted_at: submittedAt, data };
}

/** Keeps the answer; a transient R2 failure is retried, as losing a paid answer is the worst outcome. */
export async function stage(
  ctx: ProviderContext,
  job: ProviderJob,
  bytes: Uint8Array,
  jobId: string,
  verdict?: Verdict,
): Promise<ProviderHandle> {
  const key = `${prefixOf(job.task_id)}${crypto.randomUUID().replaceAll("-", "")}`;
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await ctx.env.ARTIFACTS.put(key, bytes, {
        httpMetadata: { contentType: "application/json" },
        customMetadata: {
          // Other upstreams stage under the same task prefix (a task that moved routes): this names ours.
          provider: ctx.config.name,
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
  // Ark has answered (and billed) but the answer could not be kept: say so rather than pretend it never ran.
  throw new ProviderError(
    "model_request_failed",
    `${ctx.config.name} answered but the answer could not be stored: ${last instanceof Error ? last.message : String(last)}`,
    { retryable: true, accepted: "unknown" },
  );
}

/** An answer this provider staged for the task since `since`, or null. */
export async function findStaged(ctx: ProviderContext, job: ProviderJob, since = 0): Promise<ProviderHandle | null> {
  const listed = await ctx.env.ARTIFACTS.list({ prefix: prefixOf(job.task_id), include: ["customMetadata"] });
  const found = listed.objects
    .filter((o) => o.customMetadata?.provider === ctx.config.name && o.uploaded.getTime() >= since)
    .sort((a, b) => b.uploaded.getTime() - a.uploaded.getTime())[0];
  if (!found) return null;
  const meta = found.customMetadata ?? {};
  const submittedAt = Number(meta.submitted_at);
  return handleOf(
    found.key,
    meta.job_id ?? `ark_img_${found.key.slice(-32)}`,
    Number.isFinite(submittedAt) ? submittedAt : found.uploaded.getTime(),
    meta.outcome ? { outcome: meta.outcome, message: meta.outcome_message ?? "" } : undefined,
  );
}

/** The kept answer; a missing one cannot be recovered (the task then fails, refunded). */
export async function readStaged(ctx: ProviderContext, handle: ProviderHandle): Promise<Uint8Array> {
  const key = handle.data?.staging_key;
  if (!key) throw new ProviderError("model_output_invalid", `${ctx.config.name}: the task's handle names no kept answer.`);
  const object = await ctx.env.ARTIFACTS.get(key);
  if (!object) throw new ProviderError("model_output_invalid", `${ctx.config.name}: the kept answer is missing from storage.`);
  return new Uint8Array(await object.arrayBuffer());
}
