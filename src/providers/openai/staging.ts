/**
 * OpenAI's image, speech and chat calls are synchronous: the answer is the result, and it is paid
 * for the moment it arrives. The task engine, however, runs submit → poll → fetchResult and may
 * crash between any two steps. So `submit` writes the raw answer into R2 before it returns, and
 * later steps read it from there: a crash after the call never loses what was paid for.
 *
 * The rule for a crash: a crash *during* the synchronous call (before the answer is staged) may
 * repeat that call once, because no upstream job id exists to reconcile with; the tenant is never
 * charged twice, since the task settles once. A crash after staging repeats nothing: the staged
 * answer is found under the task's prefix and reused.
 *
 * Staged answers are not deleted after reading (fetchResult may run again after a later failure);
 * the `staging/` prefix is left to a bucket lifecycle rule.
 */
import type { ProviderContext, ProviderHandle, ProviderJob } from "../types";
import { ProviderError } from "../types";
import type { Answer } from "./client";

/** Other adapters may stage under the same task prefix (a task that moved routes): only OpenAI's answers are ours. */
const PROVIDER = "openai";

const prefixOf = (taskId: string) => `staging/${taskId}/`;

function randomId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/** Writes the answer; a transient R2 failure is retried, as losing a paid answer is the worst outcome. */
export async function stage(
  ctx: ProviderContext,
  job: ProviderJob,
  answer: Answer,
  contentType: string,
  verdict?: { outcome: string; message: string },
): Promise<ProviderHandle> {
  const key = `${prefixOf(job.task_id)}${randomId()}`;
  const jobId = answer.requestId ?? `oai_${randomId()}`;
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await ctx.env.ARTIFACTS.put(key, answer.bytes, {
        httpMetadata: { contentType },
        customMetadata: {
          provider: PROVIDER,
          job_id: jobId,
          submitted_at: String(ctx.now),
          ...(verdict ? { outcome: verdict.outcome, outcome_message: verdict.message.slice(0, 500) } : {}),
        },
      });
      return handleOf(key, jobId, ctx.now, contentType, verdict);
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
  }
  // OpenAI has answered (and billed) but the answer could not be kept: say so rather than pretend it never ran.
  throw new ProviderError(
    "model_request_failed",
    `openai answered but the answer could not be stored: ${last instanceof Error ? last.message : String(last)}`,
    { retryable: true, accepted: "unknown" },
  );
}

function handleOf(
  key: string,
  jobId: string,
  submittedAt: number,
  contentType: string,
  verdict?: { outcome: string; message: string },
): ProviderHandle {
  const data: Record<string, string> = { staging_key: key, content_type: contentType };
  if (verdict) {
    data.outcome = verdict.outcome;
    data.outcome_message = verdict.message.slice(0, 500);
  }
  return { job_id: jobId, submitted_at: submittedAt, data };
}

/** An answer staged for this task since `since` (a crash after staging, before the handle was kept), or null. */
export async function findStaged(ctx: ProviderContext, job: ProviderJob, since = 0): Promise<ProviderHandle | null> {
  const listed = await ctx.env.ARTIFACTS.list({ prefix: prefixOf(job.task_id), include: ["httpMetadata", "customMetadata"] });
  const found = listed.objects
    .filter((o) => o.customMetadata?.provider === PROVIDER && o.uploaded.getTime() >= since)
    .sort((a, b) => b.uploaded.getTime() - a.uploaded.getTime())[0];
  if (!found) return null;
  const meta = found.customMetadata ?? {};
  const submittedAt = Number(meta.submitted_at);
  const verdict = meta.outcome ? { outcome: meta.outcome, message: meta.outcome_message ?? "" } : undefined;
  return handleOf(
    found.key,
    meta.job_id ?? `oai_${found.key.slice(-32)}`,
    Number.isFinite(submittedAt) ? submittedAt : found.uploaded.getTime(),
    found.httpMetadata?.contentType ?? "application/octet-stream",
    verdict,
  );
}

/** The staged answer's bytes; a missing one cannot be recovered (fetchResult's caller then fails the task with a refund). */
export async function readStaged(
  ctx: ProviderContext,
  handle: ProviderHandle,
): Promise<{ bytes: Uint8Array; contentType: string }> {
  const key = handle.data?.staging_key;
  if (!key) throw new ProviderError("model_output_invalid", "openai: the task's handle names no staged answer.");
  const object = await ctx.env.ARTIFACTS.get(key);
  if (!object) throw new ProviderError("model_output_invalid", "openai: the staged answer is missing from storage.");
  return {
    bytes: new Uint8Array(await object.arrayBuffer()),
    contentType: object.httpMetadata?.contentType ?? handle.data?.content_type ?? "application/octet-stream",
  };
}
