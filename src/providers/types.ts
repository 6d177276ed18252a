/**
 * The one interface every upstream adapter implements. The task object drives it: submit once,
 * poll until done, fetch the result, cancel on request. Adapters are stateless; whatever they
 * need between calls is in the handle the task object stores.
 */
import type { Capability, InterfaceFile } from "../catalog/schema";
import type { Env } from "../env";
import type { ErrorCode } from "../errors/codes";

export interface ProviderJob {
  task_id: string;
  tenant_id: string;
  capability: Capability;
  upstream_model: string;
  card: InterfaceFile;
  /** The normalized request: prompt, resolved controls, dimensions, counts. */
  request: Record<string, unknown>;
  metadata: Record<string, string>;
}

export interface ProviderHandle {
  job_id: string;
  submitted_at: number;
}

export interface Progress {
  percent: number;
  stage: string;
  message: string;
}

/** `poll_after_ms`: when the provider suggests asking again (its own estimate or Retry-After). */
export type PollResult =
  | { state: "queued"; progress: Progress; poll_after_ms?: number }
  | { state: "running"; progress: Progress; poll_after_ms?: number }
  | { state: "succeeded" }
  | { state: "failed"; error: { code: ErrorCode; message: string } };

export interface ProviderOutput {
  kind: "image" | "video" | "audio" | "text";
  content_type: string;
  bytes: Uint8Array;
  width?: number;
  height?: number;
  duration_seconds?: number;
  index: number;
}

export interface ProviderResult {
  outputs: ProviderOutput[];
  /** Usage counters as the upstream reports them (images, seconds, characters, tokens). */
  usage: Record<string, number>;
  text?: string;
  metadata?: Record<string, unknown>;
}

export interface ProviderContext {
  env: Env;
  now: number;
}

export interface ProviderAdapter {
  readonly name: string;
  submit(job: ProviderJob, ctx: ProviderContext): Promise<ProviderHandle>;
  poll(handle: ProviderHandle, job: ProviderJob, ctx: ProviderContext): Promise<PollResult>;
  /** Throws when the result cannot be downloaded; the task object retries (3 attempts in all). */
  fetchResult(handle: ProviderHandle, job: ProviderJob, ctx: ProviderContext): Promise<ProviderResult>;
  cancel(handle: ProviderHandle, job: ProviderJob, ctx: ProviderContext): Promise<"canceled" | "not_cancelable">;
}

export class ProviderError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
