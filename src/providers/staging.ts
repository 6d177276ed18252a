/**
 * Answers of synchronous upstream calls (OpenAI images and speech, Gemini generateContent,
 * Anthropic messages, Seedream images) are the result, paid for the moment they arrive. The task
 * engine runs submit → poll → fetchResult and may crash between any two steps, so `submit` keeps
 * the raw answer in R2 (`staging/<task_id>/…`) before it returns, and later steps read it there.
 *
 * The crash rule: a crash during the call (nothing kept yet) may repeat the call once, as there is
 * no upstream job to look for; the tenant is charged once whatever happens. A crash after the
 * answer is kept repeats nothing: `findStagedAnswer` finds it under the task's prefix (the
 * adapter's `reconcile`). Kept answers outlive reads (fetchResult may run again); the task drops
 * its prefix once settled, and a bucket lifecycle rule catches what a crash leaves.
 */
import { ERROR_CODES, type ErrorCode } from "../errors/codes";
import type { ProviderContext } from "./adapter";
import type { PollResult, ProviderHandle, ProviderJob } from "./types";
import { ProviderError } from "./types";

/** A final outcome read from the answer at submit (a refusal, a filtered output), reported by poll. */
export interface StagedVerdict {
  outcome: string;
  message: string;
}

export interface StageOptions {
  /** The upstream's request id, when it sends one. */
  jobId?: string | null;
  contentType?: string;
  verdict?: StagedVerdict;
  /** Kept in the handle's data, for adapters that have other kinds of handles too. */
  kind?: string;
}

const prefixOf = (taskId: string) => `staging/${taskId}/`;
const randomId = () => crypto.randomUUID().replaceAll("-", "");

function handleOf(key: string, jobId: string, submittedAt: number, contentType: string, opts: StageOptions): ProviderHandle {
  const data: Record<string, string> = { staging_key: key, content_type: contentType };
  if (opts.kind) data.kind = opts.kind;
  if (opts.verdict) {
    data.outcome = opts.verdict.outcome;
    data.outcome_message = opts.verdict.message.slice(0, 500);
  }
  return { job_id: jobId, submitted_at: submittedAt, data };
}

/** Keeps the answer; a transient R2 failure is retried, as losing a paid answer is the worst outcome. */
export async function stageAnswer(
  ctx: ProviderContext,
  job: ProviderJob,
  bytes: Uint8Array,
  opts: StageOptions = {},
): Promise<ProviderHandle> {
  const provider = ctx.config.name;
  const key = `${prefixOf(job.task_id)}${randomId()}`;
  const jobId = opts.jobId ?? `${provider}_${randomId()}`;
  const contentType = opts.contentType ?? "application/json";
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await ctx.env.ARTIFACTS.put(key, bytes, {
        httpMetadata: { contentType },
        customMetadata: {
          // Other upstreams may stage under the same task (a task that moved routes): this names ours.
          provider,
          job_id: jobId,
          submitted_at: String(ctx.now),
          ...(opts.verdict ? { outcome: opts.verdict.outcome, outcome_message: opts.verdict.message.slice(0, 500) } : {}),
        },
      });
      return handleOf(key, jobId, ctx.now, contentType, opts);
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
  }
  // The upstream has answered (and billed) but the answer could not be kept: say so rather than pretend it never ran.
  throw new ProviderError(
    "model_request_failed",
    `${provider} answered but the answer could not be stored: ${last instanceof Error ? last.message : String(last)}`,
    { retryable: true, accepted: "unknown" },
  );
}

/** The answer this provider kept for the task since `since` (a crash after keeping it), or null. */
export async function findStagedAnswer(
  ctx: ProviderContext,
  job: ProviderJob,
  since = 0,
  opts: Pick<StageOptions, "kind"> = {},
): Promise<ProviderHandle | null> {
  const listed = await ctx.env.ARTIFACTS.list({ prefix: prefixOf(job.task_id), include: ["httpMetadata", "customMetadata"] });
  const found = listed.objects
    .filter((o) => o.customMetadata?.provider === ctx.config.name && o.uploaded.getTime() >= since)
    .sort((a, b) => b.uploaded.getTime() - a.uploaded.getTime())[0];
  if (!found) return null;
  const meta = found.customMetadata ?? {};
  const submittedAt = Number(meta.submitted_at);
  return handleOf(
    found.key,
    meta.job_id ?? `${ctx.config.name}_${found.key.slice(-32)}`,
    Number.isFinite(submittedAt) ? submittedAt : found.uploaded.getTime(),
    found.httpMetadata?.contentType ?? "application/octet-stream",
    { ...opts, ...(meta.outcome ? { verdict: { outcome: meta.outcome, message: meta.outcome_message ?? "" } } : {}) },
  );
}

/** The kept answer; a missing one cannot be recovered (the task then fails, refunded). */
export async function readStagedAnswer(
  ctx: ProviderContext,
  handle: ProviderHandle,
): Promise<{ bytes: Uint8Array; contentType: string }> {
  const key = handle.data?.staging_key;
  const provider = ctx.config.name;
  if (!key) throw new ProviderError("model_output_invalid", `${provider}: the task's handle names no kept answer.`);
  const object = await ctx.env.ARTIFACTS.get(key);
  if (!object) throw new ProviderError("model_output_invalid", `${provider}: the kept answer is missing from storage.`);
  return {
    bytes: new Uint8Array(await object.arrayBuffer()),
    contentType: object.httpMetadata?.contentType ?? handle.data?.content_type ?? "application/octet-stream",
  };
}

/**
 * Before a synchronous call: the answer this task already kept, if any (a crash after keeping it).
 * When storage cannot say, the call is not made: calling again could pay twice.
 */
export async function stagedBeforeCall(
  ctx: ProviderContext,
  job: ProviderJob,
  opts: Pick<StageOptions, "kind"> = {},
): Promise<ProviderHandle | null> {
  try {
    return await findStagedAnswer(ctx, job, 0, opts);
  } catch (e) {
    throw new ProviderError(
      "model_request_failed",
      `${ctx.config.name}: storage could not be checked before the call: ${e instanceof Error ? e.message : String(e)}`,
      { retryable: true, accepted: "no" },
    );
  }
}

/** Poll of a kept answer: nothing to wait for; only a verdict read from it at submit can fail the task. */
export function stagedPoll(handle: ProviderHandle, provider: string): PollResult {
  const outcome = handle.data?.outcome;
  if (outcome && Object.hasOwn(ERROR_CODES, outcome)) {
    return {
      state: "failed",
      error: { code: outcome as ErrorCode, message: handle.data?.outcome_message || `${provider} refused the request.` },
    };
  }
  return { state: "succeeded" };
}
