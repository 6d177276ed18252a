/**
 * The stored task and its public envelope. The record is what the task object persists;
 * the envelope is the spec's view of it, the same for reads, cancel and callbacks.
 */

import type { PricedMeter, UsageLine } from "../catalog/pricing";
import type { Capability, InterfaceFile } from "../catalog/schema";
import { ApiError } from "../errors/api-error";
import type { ErrorCode } from "../errors/codes";
import type { KeyMode } from "../keys/api-keys";
import type { RoutePlan } from "../providers/route-plan";
import type { Progress, ProviderHandle } from "../providers/types";
import type { ModelFallback } from "../routing/models-list";
import type { DeliveryState } from "./delivery-state";
import { withDeliveries } from "./delivery-view";
import { refundReason } from "./refund-reason";
import type { SafetyRecord } from "./safety-record";

export type TaskStatus = "queued" | "running" | "succeeded" | "failed" | "canceled";
export const TERMINAL: ReadonlySet<TaskStatus> = new Set(["succeeded", "failed", "canceled"]);
export const TASK_STATUSES: readonly TaskStatus[] = ["queued", "running", "succeeded", "failed", "canceled"];

export type Step = "submit" | "poll" | "fetch" | "deliver" | "settle" | "done";

export interface TaskError {
  code: ErrorCode;
  message: string;
  param?: string;
  details?: Record<string, unknown>;
}

export interface CallbackState {
  url: string;
  signing_key_id: string | null;
  status: "pending" | "delivering" | "delivered" | "failed";
  attempt_count: number;
  delivered_at: string | null;
  last_error: string | null;
  next_attempt_at: number | null;
  message_id: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
  reasoning_tokens: number;
  image_count: number;
  image_pixels: number;
  video_seconds: number;
  input_video_seconds: number;
  output_video_seconds: number;
  audio_seconds: number;
  characters: number;
  lines: UsageLine[];
  credits: string;
}

export function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_creation_tokens: 0,
    reasoning_tokens: 0,
    image_count: 0,
    image_pixels: 0,
    video_seconds: 0,
    input_video_seconds: 0,
    output_video_seconds: 0,
    audio_seconds: 0,
    characters: 0,
    lines: [],
    credits: "0",
  };
}

/**
 * A stalled job: `cancel`, its cancellation is to be asked (written before the call); `confirm`, it
 * was asked and the job must be seen to end before another starts; `wait`, it is left to finish or
 * reach the deadline (its upstream cannot cancel, no other route, or the task already moved once).
 */
export interface StallState {
  phase: "cancel" | "confirm" | "wait";
  provider: string;
  job_id: string;
  /** When it was found stalled, and for how long it had shown nothing new (seconds). */
  at: string;
  idle_seconds: number;
  reason?: "cannot_cancel" | "no_other_route" | "moved_once";
}

/** What the creating request decided: everything the task needs to run without the catalog. */
export interface TaskPlan {
  tenant_id: string;
  capability: Capability;
  model: string;
  resolved_model: string;
  /** The route tried first, and every route of the same model the task may move to, in order. */
  route: RoutePlan;
  routes: RoutePlan[];
  /** The key's mode: `test` tasks run on the sandbox and are charged nothing. */
  mode: KeyMode;
  /** The creating key: its hold counts against the key's credit limit (absent on tasks admitted before). */
  key_id?: string;
  card: InterfaceFile;
  request: Record<string, unknown>;
  input: Record<string, unknown>;
  metadata: Record<string, string>;
  warnings: { code: string; message: string; field: string }[];
  estimate: string;
  /** How to price the actual usage at the end: the meters and their unit prices (first route's). */
  pricing: PricedMeter[];
  /** The meters per route of `routes` (routes may have their own prices): the serving route's apply. */
  route_pricing?: PricedMeter[][];
  callback: { url: string; signing_key_id: string | null } | null;
  deadline_seconds: number;
  /** Days the outputs are kept once stored (src/retention). */
  output_retention_days: number;
  origin: string;
  /** The creating request's id; asynchronous errors carry it. */
  request_id: string;
  /** What content review decided at admission (src/safety/review.ts). */
  safety?: SafetyRecord | null;
  /** The storage destination the outputs go to (src/destinations/delivery.ts), as it was at admission. */
  output_destination?: { destination_id: string; prefix: string } | null;
  /** The batch the task is an item of, and its item's `custom_id` (src/batches/). */
  batch?: { batch_id: string; custom_id: string };
  /** The caller's `models` list, when it sent one (docs/routing.md). */
  models?: string[];
  /** The listed models after the one admitted, in order: each ready to run, or why it cannot (src/tasks/steps/model-fallback.ts). */
  alternates?: AlternateModel[];
  /** The listed models passed over at admission. */
  model_fallbacks?: ModelFallback[];
}

/** A listed model the task may move to: what it needs to run there, fixed at admission like its first model's. */
export type AlternateModel =
  | {
      model: string;
      card: InterfaceFile;
      request: Record<string, unknown>;
      routes: RoutePlan[];
      pricing: PricedMeter[];
      route_pricing: PricedMeter[][];
      failure?: undefined;
    }
  | { model: string; failure: { code: string; message: string } };

/** The stored task: the plan it was admitted with, and everything execution has learned since. */
export interface TaskRecord
  extends Pick<
    TaskPlan,
    | "tenant_id"
    | "capability"
    | "model"
    | "resolved_model"
    | "route"
    | "routes"
    | "mode"
    | "card"
    | "request"
    | "input"
    | "metadata"
    | "warnings"
    | "pricing"
    | "route_pricing"
    | "origin"
    | "request_id"
    | "batch"
    | "models"
    | "alternates"
    | "model_fallbacks"
  > {
  /** Which model of `models` the task is on: 0 the admitted one, n the n-th of `alternates` (its plan replaces the first's). */
  model_index?: number;
  /** The shape's version (src/tasks/record-versions.ts). */
  record_version: number;
  task_id: string;
  status: TaskStatus;
  step: Step;
  progress: Progress;
  /** Raised by one each time `status` or `progress` changes: the `id` of the task's events (GET …/events). */
  change_seq: number;
  output: Record<string, unknown> | null;
  error: TaskError | null;
  usage: Usage;
  billing: { reserved: string; captured: string; refunded: string; settled: boolean };
  /** The ledger entry this task holds: `<task_id>:<request hash prefix>:<generation>` (`<task_id>:<epoch>` before). */
  reservation_id: string;
  /** The outcome decided before settlement; the status shows it once the ledger agrees. */
  pending_outcome: { status: "succeeded" | "failed" | "canceled"; error?: TaskError } | null;
  callback: CallbackState | null;
  provider_handle: ProviderHandle | null;
  /** Which of `routes` the task is on, and the submissions made on it. */
  route_index: number;
  submit_attempts: number;
  /** Written before a submission goes out, cleared when its answer is stored: a crash leaves it set. */
  submitting: { route_index: number; at: number; webhook?: boolean } | null;
  /** An attempt on this route got no answer and may have been accepted: the task stays on this route. */
  route_uncertain: boolean;
  /** Failed submissions, oldest first (the envelope's `provider.attempts`). */
  route_failures: {
    provider: string;
    code: string;
    message: string;
    at: string;
    /** The upstream's HTTP status, when it answered one (absent: no answer, or an older record). */
    http_status?: number;
    /** "tenant": on the tenant's own key, so never the route's health for others. */
    key?: "tenant";
  }[];
  /** Consecutive status answers in an undocumented shape. */
  malformed_polls: number;
  /** What the upstream last reported of the current job, and when that last changed (ms): a stall counts from it. */
  activity: { job_id: string; mark: string; at: number } | null;
  /** The current job found stalled (src/tasks/steps/stall.ts); null while it moves. */
  stall: StallState | null;
  /** Stalled jobs moved to another route: at most one per task. */
  stall_moves: number;
  poll_attempts: number;
  fetch_attempts: number;
  next_poll_at: number | null;
  created_at: string;
  started_at: string | null;
  deadline_at: string;
  completed_at: string | null;
  cancel_requested_at: string | null;
  cancel_reason: string | null;
  /** Content review's decision at admission; null on records from before review (record version 4). */
  safety: SafetyRecord | null;
  /** How long the outputs are kept (src/retention/outputs.ts); null on records from before retention (version 6). */
  retention: OutputRetention | null;
  /** The outputs' delivery to a storage destination; null when none (record version 7). */
  delivery: DeliveryState | null;
  /**
   * Artifact ids of outputs written to R2 for this task, noted before each write: those the output
   * does not list once the outcome is decided are deleted then (src/retention/outputs.ts). Absent: none.
   */
  stored_outputs?: string[];
}

/** A task's retention: its days, when its outputs expire (once stored) and when they were deleted. */
export interface OutputRetention {
  days: number;
  expires_at: string | null;
  /** When the outputs were deleted: at `expires_at` by the alarm, or earlier by `DELETE /v1/tasks/{id}/outputs`. */
  expired_at: string | null;
}

/** The same error object a synchronous failure would carry (one builder: ApiError). */
function errorObject(e: TaskError, requestId: string) {
  return new ApiError(e.code, e.message, { param: e.param, details: e.details }).toBody(requestId);
}

/** The spec's task envelope. */
function taskEnvelope(rec: TaskRecord) {
  const self = `${rec.origin}/v1/tasks/${rec.task_id}`;
  const refunded = rec.billing.refunded;
  return {
    object: "task" as const,
    task_id: rec.task_id,
    status: rec.status,
    capability: rec.capability,
    workload_type: "model",
    ...(rec.batch ? { batch_id: rec.batch.batch_id, custom_id: rec.batch.custom_id } : {}),
    model: rec.model,
    resolved_model: rec.resolved_model,
    ...(rec.models ? { models: rec.models, model_fallbacks: rec.model_fallbacks ?? [] } : {}),
    metadata: rec.metadata,
    input: rec.input,
    progress: rec.progress,
    output: rec.output,
    warnings: rec.warnings,
    provider: {
      name: rec.route.provider,
      upstream_model: rec.route.upstream_model,
      simulated: rec.route.provider === "sandbox",
      mode: rec.mode ?? "live",
      key: rec.route.key ?? "platform",
      failed_attempts: (rec.route_failures ?? []).map((f) => ({
        provider: f.provider,
        code: f.code,
        message: f.message,
        at: f.at,
      })),
    },
    ...(rec.error ? { error: errorObject(rec.error, rec.request_id) } : {}),
    usage: rec.usage,
    billing: {
      charged_credits: rec.billing.reserved,
      refunded_credits: refunded,
      granted_credits: "0",
      grant_source: "none",
      net_charged_credits: rec.billing.settled ? rec.billing.captured : rec.billing.reserved,
      refund_reason: refundReason(rec),
    },
    ...(rec.callback
      ? {
          callback: {
            url: rec.callback.url,
            status: rec.callback.status === "delivering" ? "pending" : rec.callback.status,
            attempt_count: rec.callback.attempt_count,
            delivered_at: rec.callback.delivered_at,
            last_error: rec.callback.last_error,
          },
        }
      : {}),
    created_at: rec.created_at,
    started_at: rec.started_at,
    deadline_at: rec.deadline_at,
    completed_at: rec.completed_at,
    cancel_requested_at: rec.cancel_requested_at,
    links: { self, cancel: `${self}/cancel`, assets: `${self}/assets` },
  };
}
/** The envelope with its outputs' deliveries to storage destinations (src/destinations/delivery.ts). */
export function envelope(rec: TaskRecord) {
  return withDeliveries(taskEnvelope(rec), rec.delivery);
}
export type Envelope = ReturnType<typeof envelope>;
