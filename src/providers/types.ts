/**
 * The one interface every upstream implements. The task object drives a media job: submit once,
 * poll until done, fetch the result, cancel on request. Adapters are stateless; whatever they need
 * between calls is in the handle the task object stores the moment `submit` returns.
 * Chat is the other half: an upstream that can answer chat completions exposes `chat`.
 */
import type { Env } from "../env";
import type { ErrorCode } from "../errors/codes";
import type { ProviderConfig } from "./config";
import type { JobInput, MediaCapability, ProviderJob } from "./jobs";

export type { JobFor, JobInput, MediaCapability, ProviderJob } from "./jobs";

export interface ProviderHandle {
  /** The upstream's own id for the job (prediction id, request id, …). */
  job_id: string;
  submitted_at: number;
  /** Whatever else the adapter needs later (status and result URLs, the endpoint it used). */
  data?: Record<string, string>;
}

export interface Progress {
  percent: number;
  stage: string;
  message: string;
  /** Requests ahead of the job in the upstream's queue, where the upstream reports it (0: next). */
  queue_position?: number;
  /** Estimated seconds to completion (src/tasks/steps/eta.ts); absent when no estimate is possible. */
  eta_seconds?: number;
}

/**
 * `poll_after_ms`: when the provider suggests asking again (its own estimate or Retry-After).
 * `activity`: what the upstream itself reported (its status word, queue position, log lines), as a
 * value that changes only when the upstream reports something new; a job whose activity stays the
 * same past its card's stall threshold is stalled (src/tasks/steps/stall.ts). Without it, the
 * state, stage, message and queue position are compared (never the percent, which most adapters
 * draw from elapsed time).
 */
export type PollResult =
  | { state: "queued"; progress: Progress; poll_after_ms?: number; activity?: string }
  | { state: "running"; progress: Progress; poll_after_ms?: number; activity?: string }
  | { state: "succeeded" }
  | { state: "failed"; error: { code: ErrorCode; message: string } };

/** An output: bytes the adapter already holds, or a URL the service downloads (with a size cap) into R2. */
export type OutputSource = { bytes: Uint8Array } | { url: string; headers?: Record<string, string> };

export type ProviderOutput = {
  kind: "image" | "video" | "audio" | "text";
  /** Required with bytes; with a URL the downloaded bytes decide (their probed type wins). */
  content_type?: string;
  width?: number;
  height?: number;
  duration_seconds?: number;
  index: number;
} & OutputSource;

export interface ProviderResult {
  outputs: ProviderOutput[];
  /**
   * Usage as the upstream reports it (tokens, characters, seconds). Image counts and pixels, and
   * seconds of audio and video, are measured by the service from the stored outputs when absent.
   */
  usage: Record<string, number>;
  text?: string;
  metadata?: Record<string, unknown>;
}

/** How an adapter reaches the job's inputs: a short-lived signed URL served by this service, or the bytes. */
export interface InputAccess {
  url(input: JobInput): Promise<string>;
  bytes(input: JobInput): Promise<Uint8Array>;
}

export interface ProviderContext {
  env: Env;
  now: number;
  config: ProviderConfig;
  inputs: InputAccess;
  /** Where this provider may call back to wake the task, when the deployment has a public URL. */
  webhookUrl: string | null;
}

export interface ProviderAdapter {
  readonly name: string;
  /** The provider's documented API base (PROVIDER_<NAME>_BASE_URL overrides it). */
  readonly defaultBaseUrl: string;
  /** The media capabilities it serves (a card's route to it is live for these only). */
  readonly capabilities: readonly MediaCapability[];
  /** Whether it answers chat completions (`chatUpstream` in src/providers/chat.ts). */
  readonly chat?: boolean;
  /** Its outputs are simulated, not a real model's (the sandbox); as its entry in names.ts says. */
  readonly simulated?: boolean;
  submit(job: ProviderJob, ctx: ProviderContext): Promise<ProviderHandle>;
  poll(handle: ProviderHandle, job: ProviderJob, ctx: ProviderContext): Promise<PollResult>;
  /** Throws when the result cannot be read; the task object retries (3 attempts in all). */
  fetchResult(handle: ProviderHandle, job: ProviderJob, ctx: ProviderContext): Promise<ProviderResult>;
  cancel(handle: ProviderHandle, job: ProviderJob, ctx: ProviderContext): Promise<"canceled" | "not_cancelable">;
  /**
   * Whether the job itself asks to fail (a drill the adapter honours, as the sandbox's
   * `metadata.sandbox_fault`): its failures are then the request's, never counted against the route.
   */
  requestedFailure?(job: ProviderJob, ctx: ProviderContext): boolean;
  /**
   * What makes a `"canceled"` answer certain enough to start the job again elsewhere (a stalled job
   * moves only once its first job has stopped): `"answer"`, the answer itself (the upstream removes
   * or aborts the job before it answers); otherwise (`"status"`, the default) a status read after it
   * that shows the job ended, as where a running job only receives a cancellation signal.
   */
  readonly cancelStops?: "answer" | "status";
  /**
   * After a crash between a submission and the write of its handle: the job this task submitted,
   * found by the tag the adapter put on it, or null when there is none. Adapters whose upstream
   * cannot tag or list jobs leave it out (the rule for them is in docs/providers.md).
   */
  reconcile?(job: ProviderJob, ctx: ProviderContext, since: number): Promise<ProviderHandle | null>;
  /**
   * For an upstream without `reconcile` that calls back: the handle of the job an authentic webhook
   * names, when this task's submission went out with the webhook URL and its answer was lost.
   */
  adopt?(jobId: string, job: ProviderJob, ctx: ProviderContext, submittedAt: number): ProviderHandle;
  /**
   * Checks a webhook the provider sent to /webhooks/providers/<name>/<task_id>. Returns the upstream
   * job id it is about when it is authentic, null otherwise. A webhook only wakes the task early:
   * polling still decides the outcome, so a lost or forged one changes nothing.
   */
  verifyWebhook?(request: Request, body: Uint8Array, config: ProviderConfig): Promise<{ job_id: string } | null>;
  /**
   * Checks a credential (a tenant's own key) with the provider's cheapest authenticated call, a
   * model list where one exists: resolves when accepted (with a warning when the key is valid but
   * cannot serve yet, as an account without credit), throws the provider's ProviderError when not.
   * Adapters whose provider documents no such call leave it out (the key is then stored `unchecked`).
   */
  verifyKey?(config: ProviderConfig): Promise<KeyCheck | undefined> | Promise<void>;
}

/** What a key check found besides "accepted": something the tenant should know (no credit left). */
export interface KeyCheck {
  warning?: { code: string; message: string };
}

/**
 * Whether the upstream may have accepted the job when a submission failed:
 * - "no": it answered with a refusal (an HTTP error status): safe to retry or move to another route;
 * - "unknown": no answer (timeout, broken connection): it may be running; never moved to another route.
 */
export type Accepted = "no" | "unknown";

export class ProviderError extends Error {
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly accepted: Accepted;
  readonly upstreamStatus: number | undefined;
  /** The upstream answered, but not in its documented shape (the task gives up after a few in a row). */
  readonly malformed: boolean;
  /** The credential's fault (401, 403, an exhausted quota): a tenant's own key is marked invalid, never the route. */
  readonly keyFault: boolean;
  constructor(
    readonly code: ErrorCode,
    message: string,
    opts: {
      retryable?: boolean;
      retryAfterMs?: number;
      accepted?: Accepted;
      status?: number;
      malformed?: boolean;
      keyFault?: boolean;
    } = {},
  ) {
    super(message);
    this.name = "ProviderError";
    this.retryable = opts.retryable ?? false;
    this.retryAfterMs = opts.retryAfterMs;
    this.accepted = opts.accepted ?? "no";
    this.upstreamStatus = opts.status;
    this.malformed = opts.malformed ?? false;
    this.keyFault = opts.keyFault ?? false;
  }
}

/** Safety outcomes end the task at once: refunded, never retried, never moved to another route. */
export const SAFETY_CODES: ReadonlySet<ErrorCode> = new Set(["safety_rejected", "content_filtered"]);
