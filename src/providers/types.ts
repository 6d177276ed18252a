/**
 * What an upstream's job is made of: its handle, progress, poll answers, results and errors.
 * Plain types only, free of the Worker's bindings, so stored records and RPC contracts can name
 * them without reaching `Env`; the adapter interface itself is in ./adapter.ts.
 */
import type { ErrorCode } from "../errors/codes";
import type { OutboundCause } from "../lib/outbound-cause";
import type { JobInput } from "./jobs";

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
  /** Why no usable answer came (src/lib/outbound-cause.ts): a network kind, or `http_<status>`. */
  readonly outboundCause: OutboundCause | undefined;
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
      cause?: OutboundCause;
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
    this.outboundCause = opts.cause;
  }
}

/** Safety outcomes end the task at once: refunded, never retried, never moved to another route. */
export const SAFETY_CODES: ReadonlySet<ErrorCode> = new Set(["safety_rejected", "content_filtered"]);
