/** The batch as its object stores it, and the spec's batch envelope made from it. */

import type { Caller } from "../accounts/caller";
import type { Capability } from "../catalog/schema";
import type { ErrorBody } from "../errors/api-error";
import type { KeyMode } from "../keys/api-keys";

export type BatchStatus = "queued" | "running" | "completed" | "canceling" | "canceled";
/** `admitting`: the rows are still being written; nobody sees the batch until it is sealed. */
export type StoredBatchStatus = BatchStatus | "admitting";
export type ItemStatus = "queued" | "running" | "succeeded" | "failed" | "canceled";
export const ITEM_STATUSES: readonly ItemStatus[] = ["queued", "running", "succeeded", "failed", "canceled"];
export const ITEM_ENDS: ReadonlySet<string> = new Set(["succeeded", "failed", "canceled"]);

export interface BatchCallbackState {
  url: string;
  signing_key_id: string | null;
  status: "pending" | "delivered" | "failed";
  attempt_count: number;
  next_attempt_at: number | null;
  delivered_at: string | null;
  last_error: string | null;
  message_id: string;
}

/** The `batch` row, parsed. */
export interface BatchRow {
  batch_id: string;
  tenant_id: string;
  mode: KeyMode;
  idempotency_key: string;
  request_hash: string;
  operation: Capability;
  caller: Caller;
  status: StoredBatchStatus;
  concurrency: number;
  max_credits: string | null;
  estimated_credits: string;
  charged_credits: string;
  refunded_credits: string;
  callback: { url: string; signing_key_id: string | null } | null;
  callback_state: BatchCallbackState | null;
  metadata: Record<string, string>;
  origin: string;
  request_id: string;
  paused_until: number | null;
  next_check_at: number | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  cancel_requested_at: string | null;
  output_file_id: string | null;
  /** When the tenant's retention deletes the output file (ISO 8601), set with it. */
  output_expires_at: string | null;
  /** When the batch's alarm deleted it. */
  output_expired_at: string | null;
  n_total: number;
  n_queued: number;
  n_running: number;
  n_succeeded: number;
  n_failed: number;
  n_canceled: number;
}

export interface BatchCounts {
  total: number;
  queued: number;
  running: number;
  succeeded: number;
  failed: number;
  canceled: number;
}

/** What an item's end keeps: its task's status, its billing, and the line of the output file. */
export interface ItemEnd {
  status: "succeeded" | "failed" | "canceled";
  reserved: string;
  refunded: string;
  error: ErrorBody | Record<string, unknown> | null;
  output: unknown;
  usage: unknown;
  billing: unknown;
}

export interface BatchItemView {
  object: "batch_item";
  custom_id: string;
  task_id: string | null;
  status: ItemStatus;
  error?: Record<string, unknown>;
}

export function batchEnvelope(b: BatchRow, counts: BatchCounts, outputFileUrl: string | null) {
  const self = `${b.origin}/v1/batches/${b.batch_id}`;
  return {
    object: "batch" as const,
    batch_id: b.batch_id,
    operation: b.operation,
    status: (b.status === "admitting" ? "queued" : b.status) as BatchStatus,
    counts,
    billing: {
      estimated_credits: b.estimated_credits,
      charged_credits: b.charged_credits,
      refunded_credits: b.refunded_credits,
    },
    max_credits: b.max_credits,
    concurrency: b.concurrency,
    metadata: b.metadata,
    ...(b.callback_state
      ? {
          callback: {
            url: b.callback_state.url,
            status: b.callback_state.status,
            attempt_count: b.callback_state.attempt_count,
            delivered_at: b.callback_state.delivered_at,
            last_error: b.callback_state.last_error,
          },
        }
      : {}),
    created_at: b.created_at,
    started_at: b.started_at,
    completed_at: b.completed_at,
    cancel_requested_at: b.cancel_requested_at,
    ...(b.output_file_id
      ? {
          output_file_id: b.output_file_id,
          output_file_url: outputFileUrl,
          output_file_expires_at: b.output_expires_at,
        }
      : {}),
    links: { self, items: `${self}/items`, cancel: `${self}/cancel` },
  };
}
export type BatchEnvelope = ReturnType<typeof batchEnvelope>;
